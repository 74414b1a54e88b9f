#!/bin/sh
# build-local.sh builds the lab's images without any registry:
#   1. dist/lab: a static lab binary built on this machine by the Go toolchain
#      (CGO_ENABLED=0, -trimpath, stamped with the version);
#   2. `lab` (the default): the lab image (default mcplab/lab:local) from the
#      `runtime` stage of docker/Dockerfile, with the legacy builder
#      (DOCKER_BUILDKIT=0), which pulls nothing because that stage is FROM
#      scratch and comes first. After it, `docker compose up` uses the image.
#   3. `workbench` (after the lab image): the runner image, when this
#      machine lacks it (docker/runner-image.sh: debootstrap, needs root and
#      a Debian mirror, once per machine), then the workbench (default
#      mcplab/workbench:local) from the `workbench` stage, which adds
#      dist/lab to it. After it, `docker compose run --rm workbench` uses
#      the image.
#
#   sh docker/build-local.sh [lab] [workbench]
#
#   LAB_IMAGE        lab image name (default mcplab/lab:local)
#   WORKBENCH_IMAGE  workbench image name (default mcplab/workbench:local)
#   RUNNER_IMAGE     the runner image (default mcplab/runner:bookworm)
#   LAB_VERSION      version stamp (default: git describe, else "dev")
set -eu

say() { printf 'build-local.sh: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

image=${LAB_IMAGE:-mcplab/lab:local}
workbench_image=${WORKBENCH_IMAGE:-mcplab/workbench:local}
runner_image=${RUNNER_IMAGE:-mcplab/runner:bookworm}
[ "$#" -gt 0 ] || set -- lab
for target in "$@"; do
	case $target in
	lab | workbench) ;;
	*) fail "unknown image \"$target\"; the images are lab and workbench" ;;
	esac
done
# The legacy builder builds the runtime stage on the way to the workbench
# and would leave it behind untagged; built first as the lab image, it is
# reused, and both images hold the same binary.
case " $* " in
*" lab "*) ;;
*) set -- lab "$@" ;;
esac
version=${LAB_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}

command -v go >/dev/null 2>&1 || fail "go is not on PATH; install Go 1.26 or set PATH"
docker info >/dev/null 2>&1 || fail "no Docker engine answers (try docker/engine.sh)"

say "building dist/lab, version $version"
mkdir -p dist
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o dist/lab ./cmd/lab ||
	fail "go build ./cmd/lab failed"

for target in "$@"; do
	case $target in
	lab)
		say "building $image from docker/Dockerfile, target runtime"
		DOCKER_BUILDKIT=0 docker build --quiet --file docker/Dockerfile --target runtime --tag "$image" . >/dev/null ||
			fail "docker build failed"
		say "built $image ($(docker image inspect -f '{{.Size}}' "$image") bytes); start the lab with: docker compose up (Compose v2), or docker-compose up (v1)"
		;;
	workbench)
		RUNNER_IMAGE=$runner_image sh docker/runner-image.sh || fail "the runner image $runner_image could not be built"
		say "building $workbench_image from docker/Dockerfile, target workbench, on $runner_image"
		DOCKER_BUILDKIT=0 docker build --quiet --file docker/Dockerfile --target workbench \
			--build-arg RUNNER_IMAGE="$runner_image" --tag "$workbench_image" . >/dev/null ||
			fail "docker build failed"
		say "built $workbench_image ($(docker image inspect -f '{{.Size}}' "$workbench_image") bytes); open it with: docker compose run --rm workbench (Compose v2), or docker-compose run --rm workbench (v1)"
		;;
	esac
done
