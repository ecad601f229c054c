#!/usr/bin/env bash
# CH-benCHmark beside go-tpc's `ch` on one MariaDB server of its own (a
# sandbox with a 2 GiB buffer pool): each tool's TPC-C tables and CH tables
# in a database of their own at the same warehouses, then the mixed run
# (TPC-C clients beside one analytic stream, the same 22 queries in the same
# joins) by each tool in turn, REPS times: tpmC, analytic queries per hour
# (completed queries over the run's seconds, both tools counted alike) and
# the client's CPU seconds.
# Usage: bash bench/ch.sh [REPS] [SECONDS]  (FB=... GOTPC=... to choose the programs)
# Writes bench/RESULTS-ch.md.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-2}
SECS=${2:-60}
W=${W:-2}
T=${T:-2}
NAME=fb-ch
PORT=${PORT:-13407}
SERVER_SET=(innodb_buffer_pool_size=2G)
source bench/gotpc-beside.sh

echo "prepare..." >&2
"$FB" prepare ch --target "$FBURL" --warehouses "$W" --threads 2 >"$WORK/fb-prepare.out" 2>&1
"$GOTPC" tpcc prepare "${GO[@]}" --warehouses "$W" -T 2 >"$WORK/go-prepare.out" 2>&1
"$GOTPC" ch prepare "${GO[@]}" --warehouses "$W" >>"$WORK/go-prepare.out" 2>&1

for r in $(seq "$REPS"); do
    echo "run $r of $REPS..." >&2
    timed "fb-$r" "$FB" run ch --target "$FBURL" --warehouses "$W" --threads "$T" --analytic-streams 1 --alone-phase off --time "$SECS" --no-save --output json
    timed "go-$r" "$GOTPC" ch run "${GO[@]}" --warehouses "$W" -T "$T" -t 1 --time "${SECS}s" --interval "${SECS}s"
done

python3 - "$WORK" "$REPS" "$SECS" "$W" "$T" <<'EOF'
import json, re, statistics, sys
sys.path.insert(0, "bench")
import beside
work, reps, secs, w, t = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
times = beside.times(work)
rows = {"fairbench": [], "go-tpc": []}
for r in range(1, reps + 1):
    # JSON lines: the intervals, then the summary with the workload's figures.
    summaries = [json.loads(l) for l in open(f"{work}/fb-{r}.out") if l.startswith("{")]
    f = [s for s in summaries if "figures" in s][-1]["figures"]
    rows["fairbench"].append((float(f["tpmC"]), float(f["analytic queries per hour"]), int(f["analytic queries"]), times[f"fb-{r}"][1]))
    go = open(f"{work}/go-{r}.out").read()
    tpmc = float(re.findall(r"tpmC: ([0-9.]+)", go)[-1])
    summary = go[go.rindex("Finished"):]
    queries = sum(int(n) for n in re.findall(r"Q\d+\s+- Count: (\d+)", summary))
    rows["go-tpc"].append((tpmc, queries * 3600.0 / secs, queries, times[f"go-{r}"][1]))
med = lambda v: statistics.median(v)
lines = [
    "# CH-benCHmark beside go-tpc's ch",
    "",
    f"One MariaDB sandbox (2 GiB buffer pool), {w} warehouses in each tool's own database, {t} TPC-C clients beside one analytic stream, "
    f"{secs:.0f} s per run, the tools alternated {reps} times (`bash bench/ch.sh {reps} {secs:.0f}`). Analytic queries per hour are the "
    "queries completed over the run's seconds for both tools (go-tpc's own QphH divides by the queries' summed time instead).",
    "",
    "| tool | tpmC (median, spread) | analytic queries/hour | queries | client CPU s |",
    "|---|---|---|---|---|",
]
for tool, v in rows.items():
    tp = [x[0] for x in v]; q = [x[1] for x in v]
    lines.append(f"| {tool} | {med(tp):.0f} ({min(tp):.0f}-{max(tp):.0f}) | {med(q):.0f} ({min(q):.0f}-{max(q):.0f}) | {med([x[2] for x in v]):.0f} | {med([x[3] for x in v]):.1f} |")
fb, go = rows["fairbench"], rows["go-tpc"]
lines += ["", f"Ratios fairbench / go-tpc (medians): tpmC {med([x[0] for x in fb]) / med([x[0] for x in go]):.2f}, analytic queries/hour "
          f"{med([x[1] for x in fb]) / max(med([x[1] for x in go]), 1e-9):.2f}, client CPU {med([x[3] for x in fb]) / max(med([x[3] for x in go]), 1e-9):.2f}.", "",
          "The two sides share the server's cores: where one tool's transactions take less of them its queries get more, so "
          "tpmC and queries an hour are read together, not each as a ranking. fairbench sends sysbench-tpcc's statements per "
          "order line and go-tpc its own; the queries are the same texts and joins. A query in "
          "flight at the end is cancelled by both (go-tpc through its context).", ""]
open("bench/RESULTS-ch.md", "w").write("\n".join(lines))
print("\n".join(lines))
EOF
