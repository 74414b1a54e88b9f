#!/bin/sh
# engine.sh makes sure a Docker engine answers on this machine.
#
# It is safe to run many times:
#   - if `docker info` already works, it does nothing;
#   - if dockerd is missing, it installs Debian's docker.io and docker-compose
#     (and debootstrap, used by docker/runner-image.sh) with apt-get;
#   - it starts dockerd in the background, logging to $DOCKERD_LOG, and waits
#     up to $DOCKERD_WAIT seconds for `docker info` to answer.
#
# Everything it does is reported on stderr. It exits 0 when the engine
# answers, and non-zero with a message saying why when it cannot.
set -u

log_file=${DOCKERD_LOG:-/var/log/mcplab-dockerd.log}
wait_seconds=${DOCKERD_WAIT:-60}

say() { printf 'engine.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

# dockerd_pids prints the pids of running dockerd processes, if any.
dockerd_pids() {
	if command -v pgrep >/dev/null 2>&1; then
		pgrep -x dockerd
	elif [ -r /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
		cat /var/run/docker.pid
	fi
}

show_log() {
	say "the last lines of $log_file:"
	tail -n 20 "$log_file" >&2 2>/dev/null
}

if docker info >/dev/null 2>&1; then
	say "the Docker engine already answers; nothing to do"
	exit 0
fi

# need_install collects the missing packages, each with a leading space.
need_install=""
if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
	need_install=" docker.io"
fi
command -v docker-compose >/dev/null 2>&1 || need_install="$need_install docker-compose"
command -v debootstrap >/dev/null 2>&1 || need_install="$need_install debootstrap"

if [ -n "$need_install" ]; then
	[ "$(id -u)" = 0 ] || fail "missing packages:$need_install; and not root: install them with apt-get as root"
	command -v apt-get >/dev/null 2>&1 || fail "missing packages:$need_install; and no apt-get on this machine"
	say "installing$need_install with apt-get (it takes a while the first time)"
	apt-get update >&2 || fail "apt-get update failed; is the Debian mirror reachable?"
	# shellcheck disable=SC2086 # word splitting of the package list is intended
	DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Options::=--force-unsafe-io $need_install >&2 ||
		fail "apt-get install$need_install failed"
fi

command -v dockerd >/dev/null 2>&1 || fail "dockerd is still not on PATH after the install"

running=$(dockerd_pids | tr '\n' ' ')
if [ -S /var/run/docker.sock ] && [ -z "$running" ]; then
	say "removing a stale /var/run/docker.sock left by a stopped dockerd"
	rm -f /var/run/docker.sock
fi

if [ -n "$running" ]; then
	say "dockerd is already running (pid $running); waiting for it to answer"
else
	[ "$(id -u)" = 0 ] || fail "dockerd is not running and only root can start it"
	mkdir -p "$(dirname "$log_file")"
	say "starting dockerd in the background, log in $log_file"
	nohup dockerd >>"$log_file" 2>&1 </dev/null &
	say "dockerd pid $!"
fi

waited=0
while ! docker info >/dev/null 2>&1; do
	if [ "$waited" -ge "$wait_seconds" ]; then
		show_log
		fail "dockerd did not answer within ${wait_seconds}s"
	fi
	if [ -z "$(dockerd_pids)" ]; then
		show_log
		fail "dockerd exited before it answered"
	fi
	sleep 1
	waited=$((waited + 1))
done
say "the Docker engine answers after ${waited}s ($(docker info --format '{{.ServerVersion}}' 2>/dev/null))"
