#!/usr/bin/env bash
# Debian's sysbench Lua scripts through fairbench and through sysbench on the
# same server (bench/lua.py says what is measured):
#
#   bash bench/lua.sh [--engine maria|pg] [--time 10] [--reps 3] [--clients 4] [--many 1000]
#
# Servers: the ones of FAIRBENCH_TEST_* in the environment, else its own
# (scripts/servers.sh), stopped at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --release --quiet
if [[ -z ${FAIRBENCH_TEST_TMP:-} ]]; then
    env_lines=$(bash scripts/servers.sh start)
    eval "$env_lines"
    trap 'bash scripts/servers.sh stop "$FAIRBENCH_TEST_TMP"' EXIT
fi
python3 "$here/lua.py" --fairbench "$target/release/fairbench" "$@"
