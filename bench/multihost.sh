#!/usr/bin/env bash
# 4 generator processes, each in its own network namespace (veth to the host), against one
# PostgreSQL sandbox, vs one process with the same total clients; then merge time for 4 logs
# of a long run at a low rate. Needs root.
#   bash bench/multihost.sh [SECONDS_PER_THROUGHPUT_RUN] [SECONDS_OF_LONG_RUN] [FAIRBENCH_BINARY]
# Results: bench/multihost-out/ (logs, merge outputs); the table goes in RESULTS-multihost.md.
set -euo pipefail
T=${1:-20}
LONG=${2:-600}
FB=${3:-$PWD/target/release/fairbench}
OUT=$PWD/bench/multihost-out
N=4
THREADS=2
mkdir -p "$OUT" && rm -rf "$OUT/pg"
cleanup() {
    for i in $(seq 1 $N); do ip netns del "fbbench-$i" 2>/dev/null || true; ip link del "fbbh$i" 2>/dev/null || true; done
    "$FB" server stop "$OUT/pg" >/dev/null 2>&1 || true
}
trap cleanup EXIT
listen=127.0.0.1
for i in $(seq 1 $N); do
    ip netns add "fbbench-$i"
    ip link add "fbbh$i" type veth peer name "fbbn$i"
    ip link set "fbbn$i" netns "fbbench-$i"
    ip addr add "10.201.24$i.1/30" dev "fbbh$i"; ip link set "fbbh$i" up
    ip -n "fbbench-$i" addr add "10.201.24$i.2/30" dev "fbbn$i"
    ip -n "fbbench-$i" link set "fbbn$i" up; ip -n "fbbench-$i" link set lo up
    listen+=",10.201.24$i.1"
done
port=$("$FB" server start postgres --dir "$OUT/pg" --user fb --password fbpass --database fbb --env \
    --set "listen_addresses=$listen" | sed -n 's/^export FAIRBENCH_SANDBOX_PORT=//p')
hba=$OUT/pg/data/pg_hba.conf
{ for i in $(seq 1 $N); do echo "host all fb 10.201.24$i.2/32 scram-sha-256"; done; cat "$hba"; } > "$hba.new" && mv "$hba.new" "$hba"
chown --reference="$OUT/pg/data" "$hba"
psql "postgres://fb:fbpass@127.0.0.1:$port/fbb" -XAtqc "SELECT pg_reload_conf()" >/dev/null
"$FB" prepare oltp_read_only --target "postgres://fb:fbpass@127.0.0.1:$port/fbb" --table-size=10000 --no-save >/dev/null
member() { # i group time threads extra...
    local i=$1 g=$2 t=$3 th=$4; shift 4
    ip netns exec "fbbench-$i" "$FB" run oltp_read_only --target "postgres://fb:fbpass@10.201.24$i.1:$port/fbb" \
        --table-size=10000 --threads="$th" --time="$t" --no-prepare --no-save --group "$g" --group-size $N \
        --group-member "ns$i" --hdr-log "$OUT/$g-ns$i.hlog" "$@" > "$OUT/$g-ns$i.out" 2>&1
}
# T=0 skips the throughput comparison.
for rep in $( ((T > 0)) && echo 1 2); do
    "$FB" run oltp_read_only --target "postgres://fb:fbpass@127.0.0.1:$port/fbb" --table-size=10000 \
        --threads=$((N * THREADS)) --time="$T" --no-prepare --no-save > "$OUT/single-$rep.out" 2>&1
    for i in $(seq 1 $N); do member "$i" "tp$rep" "$T" $THREADS & done; wait
    "$FB" merge "$OUT"/tp$rep-ns*.hlog --no-save > "$OUT/merged-$rep.out"
    echo "rep $rep single: $(grep -m1 'transactions:' "$OUT/single-$rep.out")"
    echo "rep $rep merged: $(grep -m1 '^Total at' "$OUT/merged-$rep.out")"
done
for i in $(seq 1 $N); do member "$i" long "$LONG" 1 --rate=20 & done; wait
ls -l "$OUT"/long-ns*.hlog
for rep in 1 2 3; do
    /usr/bin/time -f "merge of $N x ${LONG}s logs: %e s, %M KiB max RSS" "$FB" merge "$OUT"/long-ns*.hlog --no-save > "$OUT/long-merged.out"
done
grep '^Total at' "$OUT/long-merged.out"
