#!/bin/sh
# runner-image.sh builds the image the class grader's container sandbox runs
# student servers in, and the base of the workbench image (docker/Dockerfile,
# target workbench): Debian bookworm (minbase, no recommended packages) with
# python3, nodejs (Node 18), bash and coreutils, a non-root user "runner"
# (uid and gid 65532), no registry needed. (python3, not python3-minimal: the
# minimal package has no json module.)
#
# It runs once per machine: when the image already exists and its label
# org.mcplab.runner says it was made from this script's package list, it does
# nothing. An image made by an older version of this script (one without
# nodejs, say) is rebuilt under the same name, and the old one removed when
# no container uses it.
# It needs root, debootstrap, a reachable Debian mirror and a Docker engine
# (run docker/engine.sh first). Progress goes to stderr.
#
#   RUNNER_IMAGE   image name to create (default mcplab/runner:bookworm)
#   RUNNER_MIRROR  Debian mirror (default: the one in /etc/apt/sources*,
#                  else http://deb.debian.org/debian)
set -u

image=${RUNNER_IMAGE:-mcplab/runner:bookworm}
suite=bookworm
packages=python3,nodejs,bash,coreutils
# recipe names what the image is made of; a change here rebuilds the image on
# every machine that has an older one.
recipe="debian-$suite-minbase+$packages+runner-65532"

say() { printf 'runner-image.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

docker info >/dev/null 2>&1 || fail "no Docker engine answers; run docker/engine.sh first"

old_id=""
if docker image inspect "$image" >/dev/null 2>&1; then
	have=$(docker image inspect -f '{{index .Config.Labels "org.mcplab.runner"}}' "$image" 2>/dev/null)
	if [ "$have" = "$recipe" ]; then
		say "$image already exists ($recipe); nothing to do"
		exit 0
	fi
	old_id=$(docker image inspect -f '{{.Id}}' "$image")
	say "$image exists but was made as \"${have:-an image without the org.mcplab.runner label}\", not \"$recipe\" (it may lack nodejs): rebuilding it"
fi

[ "$(id -u)" = 0 ] || fail "debootstrap needs root"
if ! command -v debootstrap >/dev/null 2>&1; then
	say "installing debootstrap"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } >&2 ||
		fail "debootstrap is missing and could not be installed: apt-get install -y debootstrap"
fi

# apt_mirror prints the first Debian (non-security) mirror named in the apt
# sources, in either the one-line or the deb822 format.
apt_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '
			/^[ \t]*#/ { next }
			$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; break } }
			$1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }
		' "$f"
	done | grep -v -e 'security' -e 'debian-ports' | grep '/debian/*$' | head -n 1
}

mirror=${RUNNER_MIRROR:-$(apt_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}

release_url="$mirror/dists/$suite/Release"
if command -v wget >/dev/null 2>&1; then
	wget -q -T 20 -t 1 -O /dev/null "$release_url" || fail "the Debian mirror does not answer: $release_url"
elif command -v curl >/dev/null 2>&1; then
	curl -fsS -m 20 -o /dev/null "$release_url" || fail "the Debian mirror does not answer: $release_url"
fi
say "using the Debian mirror $mirror"

root=$(mktemp -d /tmp/mcplab-runner.XXXXXX) || fail "cannot make a temporary directory"
trap 'rm -rf "$root" "$root.log"' EXIT
trap 'exit 1' INT TERM

start=$(date +%s)
say "debootstrap --variant=minbase --include=$packages $suite into $root (a few minutes)"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" >"$root.log" 2>&1 || {
	tail -n 20 "$root.log" >&2
	rm -f "$root.log"
	fail "debootstrap failed (the last lines of its log are above)"
}
rm -f "$root.log"

# A non-root user for the student servers, and less weight: no apt lists,
# package caches, manuals or translations.
echo 'runner:x:65532:65532:student server:/home/runner:/usr/sbin/nologin' >>"$root/etc/passwd"
echo 'runner:x:65532:' >>"$root/etc/group"
echo 'runner:!:1::::::' >>"$root/etc/shadow"
mkdir -p "$root/home/runner"
chown 65532:65532 "$root/home/runner"
rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"*.bin "$root/var/cache/apt/archives/"*.deb \
	"$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
	"$root/var/log/"*.log "$root/var/log/apt"

say "importing $root as $image"
tar -C "$root" -c . | docker import \
	--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	--change 'ENV LANG=C.UTF-8' \
	--change 'USER 65532:65532' \
	--change 'WORKDIR /home/runner' \
	--change 'CMD ["/bin/bash"]' \
	--change "LABEL org.mcplab.runner=$recipe" \
	--message "mcplab runner: debian $suite minbase + $packages" \
	- "$image" >/dev/null || fail "docker import failed"

end=$(date +%s)
size=$(docker image inspect -f '{{.Size}}' "$image")
say "built $image in $((end - start))s, $size bytes"
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect -f '{{.Id}}' "$image")" ]; then
	# Only an image no container uses is removed; otherwise it stays, untagged.
	if docker image rm "$old_id" >/dev/null 2>&1; then
		say "removed the older image $old_id"
	else
		say "kept the older image $old_id: a container still uses it (docker image prune removes it later)"
	fi
fi
