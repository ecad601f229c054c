#!/usr/bin/env bash
# What logging and instrumentation cost per operation: one server build, each setting on a server
# of its own beside the same build without it, Small Datum's point-query and update-nonindex, 5
# repetitions alternated. MariaDB (the installed build) then PostgreSQL (the installed build):
# the tables of bench/RESULTS-costs.md, about 25 minutes on 2 cores.
#
#   bash bench/costs.sh
#
# The store and the tables go to $FAIRBENCH_BENCH_OUT (default: a temporary directory, printed at
# the end).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cargo build --release --quiet
fb="${CARGO_TARGET_DIR:-$root/target}/release/fairbench"
out=${FAIRBENCH_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out"
sweep() {
    local engine=$1 tag=$2 versions=$3
    "$fb" sweep "$engine" --versions "$versions" --preset microbench --only point-query,update-nonindex \
        --repeat "${REPEAT:-5}" --tag "$tag" --ram 2G --results "$out/costs.sqlite" \
        -- --time 5 --warmup-time 2 --table-size 100000 | tee "$out/$tag.txt"
    "$fb" sweep --show "$tag" --format markdown --results "$out/costs.sqlite" >"$out/$tag.md"
}
t=$(date +%s)
sweep mariadb "costs-mariadb-$t" 'system,system+general_log=ON,system+slow_query_log=ON+long_query_time=0,system+optimizer_trace=enabled=on,system+performance_schema_consumer_events_statements_history_long=ON+performance_schema_consumer_events_waits_history_long=ON+performance_schema_instrument=%=ON,system+performance_schema=OFF'
sweep postgres "costs-postgres-$t" 'system,system+log_statement=all,system+log_duration=on,system+track_io_timing=on,system+session_preload_libraries=auto_explain+auto_explain.log_min_duration=0+auto_explain.log_analyze=on,system+pg_stat_statements.track=all'
echo "store and tables in $out"
