#!/usr/bin/env bash
# TPC-C's statement shapes beside the tools that send them, on one MariaDB server of its own (a
# sandbox with a 2 GiB buffer pool): fairbench's `--tpcc-shape per-item` beside sysbench-tpcc,
# `--tpcc-shape go-tpc` beside go-tpc, each tool's tables in a database of its own at the same
# warehouses and the same connections, and `--tpcc-shape procedures` (HammerDB's TPROC-C shape:
# HammerDB itself is not packaged for Debian) on fairbench's tables; the five runs in turn, REPS
# times. Every figure but the
# client's CPU is the server's own: committed New-Orders per minute from sum(d_next_o_id) (NOPM),
# transactions from Com_commit + Com_rollback, statements from Questions, so no tool counts for
# itself. The client's CPU is /usr/bin/time's user + system seconds of the tool's process.
# Usage: bash bench/tpcc-shapes.sh [REPS] [SECONDS]
#   FB=... GOTPC=... SYSBENCH_TPCC=DIR (the directory of sysbench-tpcc's tpcc.lua; default
#   bench/tools/sysbench-tpcc) to choose the programs.
# Writes bench/RESULTS-tpcc.md.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
SECS=${2:-30}
W=${W:-2}
T=${T:-4}
NAME=fb-tpcc-shapes
PORT=${PORT:-13408}
SERVER_SET=(innodb_buffer_pool_size=2G)
SYSBENCH_TPCC=${SYSBENCH_TPCC:-bench/tools/sysbench-tpcc}
SYSBENCH_TPCC=$(cd "$SYSBENCH_TPCC" && pwd)
[[ -f $SYSBENCH_TPCC/tpcc.lua ]] || {
    echo "sysbench-tpcc's tpcc.lua not found in $SYSBENCH_TPCC (git clone Percona-Lab/sysbench-tpcc there, or SYSBENCH_TPCC=dir)" >&2
    exit 2
}
source bench/gotpc-beside.sh
my -e "CREATE DATABASE IF NOT EXISTS sbtpcc"
SB=(sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=fairbench --mysql-password=fairbench
    --mysql-db=sbtpcc --tables=1 --scale="$W" --threads="$T")

echo "prepare..." >&2
"$FB" prepare tpcc --target "$FBURL" --warehouses "$W" --threads 2 >"$WORK/fb-prepare.out" 2>&1
"$GOTPC" tpcc prepare "${GO[@]}" --warehouses "$W" -T 2 >"$WORK/go-prepare.out" 2>&1
(cd "$SYSBENCH_TPCC" && "${SB[@]}" ./tpcc.lua prepare) >"$WORK/sb-prepare.out" 2>&1

# "Questions Com_commit Com_rollback NewOrders" of the server now; $1: the district table.
counters() {
    local status
    status=$(my -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions','Com_commit','Com_rollback')" | sort | awk '{print $2}' | tr '\n' ' ')
    # Sorted: Com_commit, Com_rollback, Questions.
    echo "$status $(my -e "SELECT SUM(d_next_o_id) FROM $1")"
}

# $1: the name; $2: the district table; the rest: the command, run in $CWD.
measured() {
    local name=$1 district=$2
    shift 2
    echo "$name $(counters "$district")" >>"$WORK/counters"
    (cd "${CWD:-.}" && timed "$name" "$@")
    echo "$name $(counters "$district")" >>"$WORK/counters"
}

for r in $(seq "$REPS"); do
    echo "round $r of $REPS..." >&2
    measured "fb-per-item-$r" fairbench.district1 "$FB" run tpcc --target "$FBURL" --warehouses "$W" --threads "$T" --time "$SECS" --tpcc-shape per-item --no-save
    CWD=$SYSBENCH_TPCC measured "sysbench-tpcc-$r" sbtpcc.district1 "${SB[@]}" --time="$SECS" --report-interval=0 ./tpcc.lua run
    measured "fb-go-tpc-$r" fairbench.district1 "$FB" run tpcc --target "$FBURL" --warehouses "$W" --threads "$T" --time "$SECS" --tpcc-shape go-tpc --no-save
    measured "go-tpc-$r" gotpc.district "$GOTPC" tpcc run "${GO[@]}" --warehouses "$W" -T "$T" --time "${SECS}s" --interval "${SECS}s"
    measured "fb-procedures-$r" fairbench.district1 "$FB" run tpcc --target "$FBURL" --warehouses "$W" --threads "$T" --time "$SECS" --tpcc-shape procedures --no-save
done

python3 - "$WORK" "$REPS" "$SECS" "$W" "$T" <<'EOF'
import statistics, sys
sys.path.insert(0, "bench")
import beside
work, reps, secs, w, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
times = beside.times(work)
seen = {}
for line in open(f"{work}/counters"):
    name, commit, rollback, questions, new_orders = line.split()
    seen.setdefault(name, []).append((int(commit) + int(rollback), int(questions), int(new_orders)))
tools = [
    ("fairbench", "per-item", "fb-per-item"),
    ("sysbench-tpcc", "per-item", "sysbench-tpcc"),
    ("fairbench", "go-tpc", "fb-go-tpc"),
    ("go-tpc", "go-tpc", "go-tpc"),
    ("fairbench", "procedures", "fb-procedures"),
]
rows = {}
for tool, shape, prefix in tools:
    rows[prefix] = []
    for r in range(1, reps + 1):
        (t0, q0, n0), (t1, q1, n1) = seen[f"{prefix}-{r}"]
        trx, stmts, nopm = t1 - t0, q1 - q0, (n1 - n0) * 60.0 / secs
        cpu = times[f"{prefix}-{r}"][1]
        rows[prefix].append((nopm, trx / secs, stmts / trx, cpu * 1e6 / trx))

def med(prefix, i):
    v = [x[i] for x in rows[prefix]]
    return statistics.median(v), min(v), max(v)

def cell(prefix, i, fmt):
    m, lo, hi = med(prefix, i)
    return f"{fmt.format(m)} ({fmt.format(lo)}-{fmt.format(hi)})"

out = [
    "# TPC-C statement shapes beside the tools that send them",
    "",
    f"`bash bench/tpcc-shapes.sh {reps} {int(secs)}`: one MariaDB sandbox (2 GiB buffer pool), {w} warehouses, {t} connections, "
    f"{int(secs)} s per run, the five runs in turn, {reps} rounds; median (min-max). Every figure but the client's CPU is the server's: "
    "NOPM from sum(d_next_o_id), transactions from Com_commit + Com_rollback, statements from Questions (BEGIN and COMMIT included). "
    "Client CPU: the tool process's user + system time over the server's transactions.",
    "",
    "| tool | shape | NOPM | transactions/s | statements per transaction | client CPU µs per transaction |",
    "|---|---|---|---|---|---|",
]
for tool, shape, prefix in tools:
    out.append(f"| {tool} | {shape} | {cell(prefix, 0, '{:.0f}')} | {cell(prefix, 1, '{:.1f}')} | {cell(prefix, 2, '{:.1f}')} | {cell(prefix, 3, '{:.0f}')} |")
out.append("")
for mine, theirs in [("fb-per-item", "sysbench-tpcc"), ("fb-go-tpc", "go-tpc")]:
    ratio = med(mine, 0)[0] / med(theirs, 0)[0]
    cpu = med(mine, 3)[0] / med(theirs, 3)[0]
    out.append(f"- fairbench `{mine[3:]}` against {theirs}: NOPM x{ratio:.2f}, client CPU per transaction x{cpu:.2f}.")
go, procs = (med(p, 0)[0] / med("fb-per-item", 0)[0] for p in ("fb-go-tpc", "fb-procedures"))
out.append(f"- fairbench's three shapes on the same tables: go-tpc's NOPM x{go:.2f} per-item's, procedures' x{procs:.2f}.")
open("bench/RESULTS-tpcc.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
