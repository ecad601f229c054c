#!/usr/bin/env bash
# PostgreSQL 12, 14, 16, 17, 18 (fetched builds) and Debian's 15 side by side, with Small Datum's
# sysbench microbenchmarks, in one command: the table of bench/RESULTS-versions.md.
#
#   bash bench/versions.sh                       the whole preset, 3 repetitions, 5 s runs (about an hour)
#   REPEAT=5 bash bench/versions.sh --only point-query,update-index
#
# Extra options are passed to `fairbench sweep` before its `--`. The store, the markdown table and
# the HTML page go to $FAIRBENCH_BENCH_OUT (default: a temporary directory, printed at the end).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cargo build --release --quiet
out=${FAIRBENCH_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out"
"${CARGO_TARGET_DIR:-$root/target}/release/fairbench" sweep postgres --versions 12,14,16,17,18,system \
    --preset microbench --repeat "${REPEAT:-3}" --tag "versions-$(date +%s)" --results "$out/versions.sqlite" \
    --html "$out/versions.html" "$@" -- --time 5 --warmup-time 2 | tee "$out/versions.txt"
echo "store, table and page in $out"
