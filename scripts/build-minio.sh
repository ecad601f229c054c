#!/usr/bin/env bash
# Builds MinIO once into ~/.cache/fairbench/bin (or $1), from its Go module: the local S3
# endpoint of `fairbench scenario engines` (MariaDB's S3 engine). The test command calls this
# first; it is required there (tests/scenario.rs checks the S3 column).
#
#   bash scripts/build-minio.sh [DIR]
#
# The module proxy serves MinIO under a pseudo-version (no release tags). A few minutes on 2
# cores; the module and build caches are removed afterwards (scripts/go-build.sh).
set -euo pipefail

FB_MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
dir=${1:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin}
[[ -x $dir/minio ]] && exit 0

# shellcheck source=scripts/go-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-build.sh"
fb_go_begin minio 1.24
mkdir -p "$dir"
log=$dir/minio-build.log
echo "fairbench: building MinIO $FB_MINIO_VERSION into $dir (once; a few minutes)" >&2
# Without cgo, as MinIO's own release builds: the standard library is then compiled once for it
# and Kubernetes' build (both unoptimized, without cgo) in the shared build cache.
CGO_ENABLED=0 GOBIN=$work/out "$go" install "${fb_go_unoptimized[@]}" -ldflags -w "github.com/minio/minio@$FB_MINIO_VERSION" >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building MinIO failed (log above, in $log)" >&2
    exit 1
}
mv "$work/out/minio" "$dir/minio"
echo "fairbench: MinIO built: $dir/minio" >&2
