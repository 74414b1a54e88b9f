#!/bin/sh
# Builds the Go test server into "$LAB_WORK/server". The Go submissions in
# ../../submissions/go-* call this from their build script.
#
# It names main.go rather than the package path, so the build works whether or
# not this folder sits inside the mcplab module. When the default Go build
# cache is not writable (a sandbox with a read-only home), it uses one under
# $LAB_WORK instead.
set -eu
: "${LAB_WORK:?LAB_WORK must name a writable directory for the build}"
cache=$(go env GOCACHE 2>/dev/null || true)
case $cache in
/*) ;;
*) cache="" ;; # unset, or "off" when there is no home directory
esac
if [ -z "$cache" ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	GOCACHE="$LAB_WORK/go-cache"
	export GOCACHE
fi
cd "$(dirname "$0")"
CGO_ENABLED=0 exec go build -o "$LAB_WORK/server" main.go
