#!/usr/bin/env bash
# TPC-H beside go-tpc on one MariaDB server of its own (a sandbox with a 4 GiB
# buffer pool, so that scale factor 1 is read from memory):
#   - the load, the tools alternated REPS times: wall seconds, rows a second,
#     client CPU seconds and the client's peak memory;
#   - the two loads' data compared table by table (row counts, sums of keys,
#     prices and quantities, counts per flag and status);
#   - every query's answer with the validation parameters: `fairbench check tpch`
#     against the TPC's answer set on both tools' data, and go-tpc's own
#     `--check` on its data;
#   - the 22 queries once in a row on one connection by each tool on the same
#     tables (go-tpc's get fairbench's foreign-key indexes first): seconds per
#     query and client CPU per query.
# Usage: bash bench/tpch.sh [REPS]  (FB=... GOTPC=... to choose the programs)
# Writes bench/RESULTS-tpch.md.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-2}
NAME=fb-tpch
PORT=${PORT:-13406}
SERVER_SET=(innodb_buffer_pool_size=4G max_allowed_packet=256M)
source bench/gotpc-beside.sh
ROWS=8660030

for r in $(seq "$REPS"); do
    echo "load $r of $REPS..." >&2
    "$FB" cleanup tpch --target "$FBURL" >/dev/null
    timed fb-load "$FB" prepare tpch --scale-factor 1 --threads 2 --target "$FBURL"
    "$GOTPC" tpch cleanup "${GO[@]}" >/dev/null 2>&1 || true
    timed gotpc-load "$GOTPC" tpch prepare "${GO[@]}" --sf 1 -T 2
done

# The same aggregates of both loads.
aggregates() {
    my "$1" -e "
SELECT 'lineitem', COUNT(*), SUM(l_orderkey), SUM(l_partkey), SUM(l_suppkey), SUM(l_quantity), SUM(l_extendedprice), SUM(l_discount), SUM(l_tax), SUM(l_returnflag='R'), SUM(l_linestatus='O'), SUM(TO_DAYS(l_shipdate)) FROM lineitem;
SELECT 'orders', COUNT(*), SUM(o_orderkey), SUM(o_custkey), SUM(o_totalprice), SUM(o_orderstatus='F'), SUM(o_orderstatus='O'), SUM(o_orderstatus='P'), SUM(TO_DAYS(o_orderdate)) FROM orders;
SELECT 'partsupp', COUNT(*), SUM(ps_partkey), SUM(ps_suppkey), SUM(ps_availqty), SUM(ps_supplycost) FROM partsupp;
SELECT 'part', COUNT(*), SUM(p_partkey), SUM(p_size), SUM(p_retailprice), COUNT(DISTINCT p_type), COUNT(DISTINCT p_container) FROM part;
SELECT 'customer', COUNT(*), SUM(c_custkey), SUM(c_nationkey), SUM(c_acctbal), COUNT(DISTINCT c_mktsegment) FROM customer;
SELECT 'supplier', COUNT(*), SUM(s_suppkey), SUM(s_nationkey), SUM(s_acctbal) FROM supplier;
SELECT 'nation', COUNT(*), SUM(n_nationkey), SUM(n_regionkey) FROM nation;
SELECT 'region', COUNT(*), SUM(r_regionkey) FROM region;"
}
aggregates fairbench >"$WORK/agg-fb"
aggregates gotpc >"$WORK/agg-go"

# go-tpc's tables get the indexes fairbench builds, so both tools query one schema.
my gotpc -e "ALTER TABLE lineitem ADD INDEX lineitem_fk1 (l_partkey, l_suppkey), ADD INDEX lineitem_fk2 (l_suppkey);
ALTER TABLE orders ADD INDEX orders_fk1 (o_custkey); ALTER TABLE partsupp ADD INDEX partsupp_fk1 (ps_suppkey);
ALTER TABLE customer ADD INDEX customer_fk1 (c_nationkey); ALTER TABLE supplier ADD INDEX supplier_fk1 (s_nationkey);
ALTER TABLE nation ADD INDEX nation_fk1 (n_regionkey);
ANALYZE TABLE lineitem, orders, partsupp, part, customer, supplier, nation, region" >/dev/null

echo "answers..." >&2
fb_check=ok go_data_check=ok go_check=ok
"$FB" check tpch --scale-factor 1 --target "$FBURL" >"$WORK/fb-check.out" 2>&1 || fb_check=failed
"$FB" check tpch --scale-factor 1 --target "$GOURL" >"$WORK/fb-check-go.out" 2>&1 || go_data_check=failed

echo "the 22 queries..." >&2
timed gotpc-queries "$GOTPC" tpch run "${GO[@]}" --sf 1 --check --count 22 || go_check=failed
timed fb-queries "$FB" run tpch --scale-factor 1 --tests power --refresh off --validation-params --no-save --target "$FBURL"

python3 - "$WORK" "$REPS" "$ROWS" "$fb_check" "$go_data_check" "$go_check" <<'EOF'
import re, statistics, sys
work, reps, rows, fb_check, go_data_check, go_check = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
times = {}
for line in open(f"{work}/times"):
    p = line.split()
    if len(p) == 5 and not p[0].startswith("Command"):
        times.setdefault(p[0], []).append((float(p[1]), float(p[2]) + float(p[3]), int(p[4])))
def med(xs): return statistics.median(xs)
def spread(xs): return f"{min(xs):.1f}-{max(xs):.1f}"
out = ["# TPC-H beside go-tpc", "",
       f"`bash bench/tpch.sh {reps}` on one MariaDB sandbox (4 GiB buffer pool), scale factor 1, the tools alternated; this machine: 2 cores.", "",
       "## Load (8,660,030 rows, two loader threads each)", "",
       "| tool | wall s (median, range) | rows/s | client CPU s | client peak RSS MB | what it builds |", "|---|---|---|---|---|---|"]
for tool, key, what in [("fairbench", "fb-load", "tables with primary keys, then 7 foreign-key indexes and statistics"), ("go-tpc", "gotpc-load", "tables with primary keys only")]:
    t = times.get(key, [])
    if t:
        w = [x[0] for x in t]
        out.append(f"| {tool} | {med(w):.1f} ({spread(w)}) | {rows / med(w):,.0f} | {med([x[1] for x in t]):.1f} | {max(x[2] for x in t) / 1024:.0f} | {what} |")
fb = open(f"{work}/agg-fb").read().split("\n")
go = open(f"{work}/agg-go").read().split("\n")
same = [a.split("\t")[0] for a, b in zip(fb, go) if a and a == b]
differ = [a.split("\t")[0] for a, b in zip(fb, go) if a and a != b]
out += ["", "## The data", "",
        f"Tables whose aggregates (row count, sums of every key, quantity, price, discount, tax and date, counts per flag and status) are equal in both loads: {', '.join(same) or 'none'}; differing: {', '.join(differ) or 'none'}.", "",
        "```", *[l for l in fb if l], "```", "",
        "## Answers (validation parameters)", "",
        f"- `fairbench check tpch --scale-factor 1` on fairbench's data, against the TPC's answer set: {fb_check}",
        f"- the same on go-tpc's data: {go_data_check}",
        f"- `go-tpc tpch run --check` on its data: {go_check}", ""]
def per_query(path, pat):
    d = {}
    for line in open(path):
        m = re.search(pat, line)
        if m:
            d[int(m.group(1))] = float(m.group(2))
    return d
fbq = per_query(f"{work}/fb-queries.out", r"^\s+Q(\d+) seconds:\s+([\d.]+)")
goq = per_query(f"{work}/gotpc-queries.out", r"\[Summary\] Q(\d+): ([\d.]+)s")
out += ["## The 22 queries once, one connection, the same tables", "",
        "| query | fairbench s | go-tpc s | ratio |", "|---|---|---|---|"]
for q in range(1, 23):
    a, b = fbq.get(q), goq.get(q)
    ratio = f"{a / b:.2f}" if a and b else "-"
    out.append(f"| Q{q} | {a if a is not None else '-'} | {b if b is not None else '-'} | {ratio} |")
for tool, key in [("fairbench", "fb-queries"), ("go-tpc", "gotpc-queries")]:
    t = times.get(key, [])
    if t:
        out.append(f"\n{tool}: {t[0][0]:.1f} s for the 22 queries, client CPU {t[0][1]:.2f} s ({t[0][1] / 22 * 1000:.0f} ms a query), peak RSS {t[0][2] / 1024:.0f} MB.")
out += ["", "Reading it: the loads are the clients' own work (generating dbgen's rows and sending them); the query",
        "times are the server's, on the same tables, and differ where the two tools' texts get other plans or",
        "meet the cache in another order (fairbench runs the power test's order, go-tpc Q1 to Q22); a single",
        "pass of each, so read them as a check that both run the same work, not as a ranking. The client",
        "CPU of a fairbench run includes its environment snapshots at the start and end."]
open("bench/RESULTS-tpch.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
