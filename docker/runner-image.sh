#!/bin/sh
# runner-image.sh builds the image the class grader's container sandbox runs
# student servers in: Debian bookworm (minbase) with python3, bash and
# coreutils, a non-root user "runner" (uid and gid 65532), no registry needed.
# (python3, not python3-minimal: the minimal package has no json module.)
#
# It runs once per machine: when the image already exists it does nothing.
# It needs root, debootstrap, a reachable Debian mirror and a Docker engine
# (run docker/engine.sh first). Progress goes to stderr.
#
#   RUNNER_IMAGE   image name to create (default mcplab/runner:bookworm)
#   RUNNER_MIRROR  Debian mirror (default: the one in /etc/apt/sources*,
#                  else http://deb.debian.org/debian)
set -u

image=${RUNNER_IMAGE:-mcplab/runner:bookworm}
suite=bookworm
packages=python3,bash,coreutils

say() { printf 'runner-image.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

docker info >/dev/null 2>&1 || fail "no Docker engine answers; run docker/engine.sh first"

if docker image inspect "$image" >/dev/null 2>&1; then
	say "$image already exists; nothing to do"
	exit 0
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
	--message "mcplab runner: debian $suite minbase + $packages" \
	- "$image" >/dev/null || fail "docker import failed"

end=$(date +%s)
size=$(docker image inspect -f '{{.Size}}' "$image")
say "built $image in $((end - start))s, $size bytes"
