#!/bin/sh
# engine-second.sh starts and stops a second Docker engine on this machine,
# beside the one docker/engine.sh starts, so the container sandbox can be
# tried against an engine named by DOCKER_HOST (a teacher's remote engine,
# here on the same machine) without touching the first one.
#
#   sh docker/engine-second.sh start DIR [IMAGE...]
#       starts dockerd with everything of its own under DIR: its socket
#       (DIR/docker.sock), data root, exec root (with its own containerd),
#       pid file and log (DIR/dockerd.log); no bridge network and no
#       iptables rules, so it does not fight the first engine over
#       docker0 or the firewall; its containers' cgroups under
#       /mcplab-second. It waits up to $DOCKERD_WAIT seconds (default 60)
#       for the engine to answer, then copies each IMAGE from the first
#       engine into it (docker save | docker load), and prints on stdout
#       the value for DOCKER_HOST: unix://DIR/docker.sock.
#   sh docker/engine-second.sh stop DIR
#       stops that engine (SIGTERM, SIGKILL after 20 s), unmounts whatever
#       it left mounted under DIR, and removes DIR.
#
# DIR must be short (a socket path has at most 107 bytes), for example one
# made by mktemp -d /tmp/mcplab-e2.XXXXXX. Needs root and dockerd. Progress
# and errors go to stderr; exit status 0 on success.
set -u

say() { printf 'engine-second.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

usage() {
	say "usage: sh docker/engine-second.sh start DIR [IMAGE...] | stop DIR"
	exit 2
}

[ "$#" -ge 2 ] || usage
action=$1
dir=$2
shift 2
case $dir in
/*) ;;
*) dir=$(pwd)/$dir ;;
esac
sock="$dir/docker.sock"
wait_seconds=${DOCKERD_WAIT:-60}

# alive tells whether the dockerd of DIR's pid file runs.
alive() {
	[ -r "$dir/dockerd.pid" ] && kill -0 "$(cat "$dir/dockerd.pid")" 2>/dev/null
}

start() {
	[ "$(id -u)" = 0 ] || fail "only root can start dockerd"
	command -v dockerd >/dev/null 2>&1 || fail "dockerd is not on PATH (docker/engine.sh installs it)"
	[ "${#sock}" -le 100 ] || fail "$dir is too long a path for the engine's socket; use a shorter one, such as mktemp -d /tmp/mcplab-e2.XXXXXX"
	alive && fail "an engine already runs for $dir (pid $(cat "$dir/dockerd.pid")); stop it first"
	mkdir -p "$dir/data" "$dir/exec" || fail "cannot make $dir"
	chmod 700 "$dir"
	say "starting a second dockerd, socket $sock, log $dir/dockerd.log"
	# The pid file is written by dockerd itself; the shell's $! is the same
	# process (no wrapper), recorded too in case dockerd dies before.
	nohup dockerd \
		--host "unix://$sock" \
		--data-root "$dir/data" \
		--exec-root "$dir/exec" \
		--pidfile "$dir/dockerd.pid" \
		--bridge none \
		--iptables=false \
		--ip6tables=false \
		--ip-masq=false \
		--cgroup-parent /mcplab-second \
		>"$dir/dockerd.log" 2>&1 </dev/null &
	echo $! >"$dir/started.pid"
	waited=0
	until docker -H "unix://$sock" info >/dev/null 2>&1; do
		if ! kill -0 "$(cat "$dir/started.pid")" 2>/dev/null; then
			tail -n 20 "$dir/dockerd.log" >&2
			fail "the second dockerd exited before it answered (its log's last lines are above)"
		fi
		if [ "$waited" -ge "$((wait_seconds * 2))" ]; then
			tail -n 20 "$dir/dockerd.log" >&2
			fail "the second dockerd did not answer within ${wait_seconds}s"
		fi
		sleep 0.5
		waited=$((waited + 1))
	done
	say "the second engine answers (pid $(cat "$dir/started.pid"))"
	for image in "$@"; do
		say "copying $image from the first engine"
		docker image inspect "$image" >/dev/null 2>&1 || fail "the first engine has no image $image"
		# A failed save must fail the copy: no pipefail in sh, so check both.
		status=$({ { docker save "$image"; echo "save:$?" >&3; } | docker -H "unix://$sock" load >/dev/null; } 3>&1)
		[ "$status" = "save:0" ] && docker -H "unix://$sock" image inspect "$image" >/dev/null 2>&1 ||
			fail "copying $image into the second engine failed"
	done
	echo "unix://$sock"
}

stop() {
	[ -d "$dir" ] || { say "$dir is not there; nothing to stop"; return 0; }
	[ -e "$dir/started.pid" ] || [ -e "$dir/data" ] ||
		fail "$dir was not made by engine-second.sh start (no started.pid, no data folder); not removing it"
	pid=""
	[ -r "$dir/started.pid" ] && pid=$(cat "$dir/started.pid")
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		# The networks made on it (testcontainers-go makes one, as this
		# engine has no bridge) are bridges of the host's: a dockerd that
		# stops leaves them behind, and each takes an address pool, until
		# no engine on the machine can make a network. Remove them first.
		docker -H "unix://$dir/docker.sock" network prune -f >/dev/null 2>&1 || true
		say "stopping the second dockerd (pid $pid)"
		kill -TERM "$pid"
		waited=0
		while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 40 ]; do
			sleep 0.5
			waited=$((waited + 1))
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "it did not stop within 20s: killing it"
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	# Its own containerd, when dockerd could not stop it.
	for f in "$dir/exec/containerd/containerd.pid"; do
		[ -r "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	# Mounts left under DIR (overlays, netns, shm), deepest first, so that
	# removing DIR never reaches into a mounted file system.
	awk -v d="$dir/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null || say "could not unmount $m"
	done
	if awk -v d="$dir/" 'index($5, d) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
		fail "something is still mounted under $dir; not removing it"
	fi
	rm -rf "$dir" || fail "cannot remove $dir"
	say "stopped; $dir removed"
}

case $action in
start) start "$@" ;;
stop) stop ;;
*) usage ;;
esac
