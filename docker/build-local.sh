#!/bin/sh
# build-local.sh builds the lab image without any registry:
#   1. dist/lab: a static lab binary built on this machine by the Go toolchain
#      (CGO_ENABLED=0, -trimpath, stamped with the version);
#   2. the image (default mcplab/lab:local) from the `runtime` stage of
#      docker/Dockerfile, with the legacy builder (DOCKER_BUILDKIT=0), which
#      pulls nothing because that stage is FROM scratch and comes first.
# After it, `docker compose up` (or `docker-compose up`) uses the image.
#
#   LAB_IMAGE    image name (default mcplab/lab:local)
#   LAB_VERSION  version stamp (default: git describe, else "dev")
set -eu

say() { printf 'build-local.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

image=${LAB_IMAGE:-mcplab/lab:local}
version=${LAB_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}

command -v go >/dev/null 2>&1 || fail "go is not on PATH; install Go 1.26 or set PATH"
docker info >/dev/null 2>&1 || fail "no Docker engine answers (try docker/engine.sh)"

say "building dist/lab, version $version"
mkdir -p dist
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o dist/lab ./cmd/lab ||
	fail "go build ./cmd/lab failed"

say "building $image from docker/Dockerfile, target runtime"
DOCKER_BUILDKIT=0 docker build --quiet --file docker/Dockerfile --target runtime --tag "$image" . >/dev/null ||
	fail "docker build failed"

say "built $image ($(docker image inspect -f '{{.Size}}' "$image") bytes); start the lab with: docker compose up"
