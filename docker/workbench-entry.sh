#!/bin/sh
# workbench-entry.sh starts the workbench's command (an interactive bash when
# none is given) as the owner of /work, the student's folder mounted from the
# host, so that what the student writes there is theirs on the host too, and
# with no capabilities left.
#
# The container starts as root only for this: it adds a passwd entry for the
# owner when the image has none, then setpriv switches to that user, clears
# the supplementary groups and empties every capability set, so nothing can
# be regained. When /work is owned by root (the student is root on the host,
# or a file sharing layer shows files as root's), the command stays root, but
# with no capabilities. Started as another user already (docker run --user),
# it just runs the command; started without the capabilities the switch
# needs, it says so and runs the command as root with what it has.
set -eu

say() { printf 'workbench: %s\n' "$*" >&2; }

[ "$#" -gt 0 ] || set -- bash

# switch_caps is the mask of the capabilities the switch needs: CHOWN (0),
# SETGID (6), SETUID (7) and SETPCAP (8).
switch_caps=$((0x1c1))
have_caps=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)

if [ "$(id -u)" = 0 ] && [ $((0x${have_caps:-0} & switch_caps)) != "$switch_caps" ]; then
	say "cannot switch to the owner of /work: the container lacks one of the capabilities CHOWN, SETUID, SETGID and SETPCAP"
	say "(docker-compose.yml's workbench service adds them); going on as root, with only the capabilities it has"
elif [ "$(id -u)" = 0 ]; then
	uid=$(stat -c %u /work) && gid=$(stat -c %g /work) || {
		say "cannot read the owner of /work"
		exit 1
	}
	home=$(awk -F: -v u="$uid" '$3 == u { print $6; exit }' /etc/passwd)
	if [ -z "$home" ]; then
		home=/home/student
		name=student
		awk -F: '$1 == "student" { found = 1 } END { exit !found }' /etc/passwd && name="student$uid"
		echo "$name:x:$uid:$gid:the owner of /work:$home:/bin/bash" >>/etc/passwd
		awk -F: -v g="$gid" '$3 == g { found = 1 } END { exit !found }' /etc/group ||
			echo "$name:x:$gid:" >>/etc/group
		mkdir -p "$home" && chown "$uid:$gid" "$home"
	fi
	export HOME="$home"
	if [ "$#" = 1 ] && [ "$1" = bash ] && [ -t 0 ]; then
		say "lab, python3 and node are here, and your folder is /work. For example:"
		say "  lab grade -- python3 server.py     or     lab grade -- node server.js"
	fi
	exec setpriv --reuid="$uid" --regid="$gid" --clear-groups \
		--inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@"
fi
exec "$@"
