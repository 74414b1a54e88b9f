#!/usr/bin/env bash
# A stdio JSON-RPC server for lesson 1 in plain bash (bash and coreutils only).
#
# It does not parse JSON. It recognises the shapes of line that lesson 1's
# scenarios send with pattern matching: ping, wait with an integer ms,
# unknown methods, lines that are not JSON, a method that is not a string,
# JSON that is not an object, notifications, and string or integer ids. It is
# fooled by nested objects that repeat the member names ("id", "method",
# "ms") and by brackets inside strings, but it does reject lines that are not
# valid UTF-8.
#
# Each wait runs in a background subshell, so a slow wait never holds up a
# later request. Every response is written by a single printf, which bash
# hands to the kernel in one write as long as the line is under 4 KiB (the
# size of its output buffer), so answers from different subshells never
# interleave. Lesson 1's answers are far shorter than that.
#
# Usage: server.sh [--mistake NAME], where NAME breaks one rule on purpose:
#   banner      prints "Server starting..." to stdout before anything else
#   sequential  waits inline, so a slow wait holds up every later request
#   no-exit     keeps running after stdin closes, until it is killed
#   hang        logs that it is ready, then never reads, answers or exits

set -u
# In a UTF-8 locale "." never matches a byte that is not valid UTF-8, which is
# how is_utf8 below tells a bad line.
export LC_ALL=C.UTF-8

mistake=""
while [ $# -gt 0 ]; do
	case $1 in
	--mistake)
		if [ $# -lt 2 ]; then
			printf 'server.sh: --mistake needs a name\n' >&2
			exit 64
		fi
		mistake=$2
		shift 2
		;;
	--mistake=*)
		mistake=${1#--mistake=}
		shift
		;;
	*)
		printf 'server.sh: unknown argument %s\n' "$1" >&2
		exit 64
		;;
	esac
done
case $mistake in
"" | banner | sequential | no-exit | hang) ;;
*)
	printf 'server.sh: unknown mistake %s (want banner, sequential, no-exit or hang)\n' "$mistake" >&2
	exit 64
	;;
esac

# Patterns for the parts of a message. A JSON string is quotes around
# characters that are not quotes or backslashes, or escaped characters.
ws='[[:space:]]*'
str='"([^"\\]|\\.)*"'
int='-?(0|[1-9][0-9]*)'
re_id_int="\"id\"$ws:$ws($int)$ws[,}]"
re_id_str="\"id\"$ws:$ws($str)"
re_id_any="\"id\"$ws:"
re_method="\"method\"$ws:$ws($str)"
re_jsonrpc="\"jsonrpc\"$ws:$ws\"2\\.0\""
re_ms_int="\"ms\"$ws:$ws($int)$ws[,}]"
re_ms_any="\"ms\"$ws:"
re_number="^$int(\\.[0-9]+)?([eE][+-]?[0-9]+)?\$"
re_two_values="[]}]$ws[[{]"

log() {
	printf 'log: %s\n' "$1" >&2
}

# send writes one response line with a single printf.
send() {
	printf '%s\n' "$1"
}

send_error() { # id code message
	send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"error\":{\"code\":$2,\"message\":\"$3\"}}"
}

# is_utf8 succeeds when the line is valid UTF-8.
is_utf8() {
	[[ $1 =~ ^.*$ ]]
}

# looks_like_json tells a line that could be JSON from one that cannot. It
# looks at the first and last characters (and at the whole of a bare value),
# and rejects two objects or arrays side by side such as "}{". That is enough
# for lesson 1's lines.
looks_like_json() {
	if [[ $1 =~ $re_two_values ]]; then
		return 1
	fi
	case $1 in
	\{*\} | \[*\] | \"*\" | true | false | null) return 0 ;;
	esac
	[[ $1 =~ $re_number ]]
}

sleep_forever() {
	while :; do
		sleep 3600
	done
}

handle() {
	local line=$1 id method ms secs
	line=${line%$'\r'}
	# Trim spaces and tabs at both ends.
	line=${line#"${line%%[![:space:]]*}"}
	line=${line%"${line##*[![:space:]]}"}
	if [ -z "$line" ]; then
		return # blank lines are skipped
	fi
	if ! is_utf8 "$line"; then
		log "got a line that is not valid UTF-8"
		send_error null -32700 "Parse error: the line is not valid UTF-8"
		return
	fi
	if ! looks_like_json "$line"; then
		log "got a line that is not JSON"
		send_error null -32700 "Parse error: the line is not JSON"
		return
	fi
	if [[ $line != \{* ]]; then
		log "got JSON that is not an object"
		send_error null -32600 "Invalid Request: a request must be a JSON object"
		return
	fi

	id=null
	if [[ $line =~ $re_id_int ]]; then
		id=${BASH_REMATCH[1]}
	elif [[ $line =~ $re_id_str ]]; then
		id=${BASH_REMATCH[1]}
	fi
	if ! [[ $line =~ $re_method ]]; then
		log "got an object whose method is not a string"
		send_error "$id" -32600 "Invalid Request: method must be a string"
		return
	fi
	method=${BASH_REMATCH[1]}
	method=${method#\"}
	method=${method%\"}
	if ! [[ $line =~ $re_jsonrpc ]]; then
		log "got $method with a wrong jsonrpc member"
		send_error "$id" -32600 'Invalid Request: jsonrpc must be the string \"2.0\"'
		return
	fi
	if ! [[ $line =~ $re_id_any ]]; then
		log "got notification $method"
		return
	fi
	if [ "$id" = null ]; then
		log "got $method with an id that is not a string or an integer"
		send_error null -32600 "Invalid Request: id must be a string or an integer"
		return
	fi
	log "got $method (id $id)"

	case $method in
	ping)
		send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{}}"
		;;
	wait)
		if [[ $line =~ $re_ms_int ]]; then
			ms=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_ms_any ]]; then
			send_error "$id" -32602 "Invalid params: ms must be a whole number of milliseconds"
			return
		else
			send_error "$id" -32602 "Invalid params: wait needs params {\\\"ms\\\": N}, and ms is missing"
			return
		fi
		if [[ $ms == -* ]]; then
			send_error "$id" -32602 "Invalid params: ms must not be negative, got $ms"
			return
		fi
		if [ ${#ms} -gt 5 ] || [ "$ms" -gt 60000 ]; then
			send_error "$id" -32602 "Invalid params: ms must be at most 60000, got $ms"
			return
		fi
		printf -v secs '%d.%03d' $((ms / 1000)) $((ms % 1000))
		if [ "$mistake" = sequential ]; then
			sleep "$secs"
			send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"waited\":$ms}}"
		else
			# The wait runs on its own so later requests are not held up.
			(
				sleep "$secs"
				send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"waited\":$ms}}"
			) &
		fi
		;;
	*)
		send_error "$id" -32601 "Method not found: $method"
		;;
	esac
}

if [ "$mistake" = banner ]; then
	printf 'Server starting...\n'
fi
log ready
if [ "$mistake" = hang ]; then
	sleep_forever
fi

line=""
while IFS= read -r line || [ -n "$line" ]; do
	handle "$line"
	line=""
done
wait # for every wait still running
log "stdin closed, all answers sent"
if [ "$mistake" = no-exit ]; then
	sleep_forever
fi
exit 0
