#!/usr/bin/env bash
# fairbench side by side with sysbench, pgbench (and go-tpc when present),
# on this machine, against the same throwaway servers:
#
#   bash bench/run.sh            full run (4 x 1M rows, 3 repetitions; an hour or more)
#   bash bench/run.sh --quick    smoke-sized run (4 x 100k rows, 2 repetitions; minutes)
#   bash bench/run.sh --only oltp[,prepare,tls,many,tpcc]
#   bash bench/run.sh --seconds 15   length of each OLTP run
#   bash bench/run.sh --only oltp --kinds pg-tcp   only PostgreSQL (of maria-socket, maria-tcp, pg-tcp)
#   bash bench/run.sh --only oltp --tests oltp_point_select --clients 4,16 --reps 5 --keep bench/RESULTS.json
#                                rerun some OLTP rows, keep the rest of the table
#   bash bench/run.sh --only tpcc --keep bench/RESULTS.json   rerun one section, keep the others
#                                (--only none: just rewrite the table from the .json)
#
# Servers: reuses the ones described by FAIRBENCH_TEST_* in the environment
# (eval "$(bash scripts/servers.sh start)"), else starts its own with
# scripts/servers.sh and stops them at the end. Results: bench/RESULTS.md
# (bench/RESULTS-quick.md for --quick), plus a .json of the raw values.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --release --quiet
fb=$target/release/fairbench

own=""
if [[ -z ${FAIRBENCH_TEST_TMP:-} ]]; then
    env_lines=$(bash scripts/servers.sh start)
    eval "$env_lines"
    own=1
    trap 'bash scripts/servers.sh stop "$FAIRBENCH_TEST_TMP"' EXIT
fi
python3 "$here/bench.py" --fairbench "$fb" "$@"
