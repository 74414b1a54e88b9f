#!/bin/sh
# up.sh is `docker compose up` for a machine that may have no Docker engine
# running and no container registry (as the project's own machines): it
# starts an engine if none answers (docker/engine.sh, needs root), builds the
# lab image from a binary made here by Go (docker/build-local.sh), then runs
# the stack with whichever Compose there is. Extra arguments go to `up`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

docker info >/dev/null 2>&1 || sh docker/engine.sh
sh docker/build-local.sh
if docker compose version >/dev/null 2>&1; then
	exec docker compose up --exit-code-from lab "$@" lab
fi
exec docker-compose up --exit-code-from lab "$@" lab
