# Sourced by bench/tpch.sh and bench/ch.sh: fairbench and go-tpc on one
# MariaDB server of their own (a sandbox), each tool in a database of its own.
# Before sourcing: NAME (the sandbox directory's prefix), PORT, and SERVER_SET
# (an array of the server's --set options). After: FB, GOTPC, WORK, FBURL,
# GOURL, GO (go-tpc's connection options), my (the mariadb client) and timed.
FB=${FB:-target/release/fairbench}
GOTPC=${GOTPC:-$(command -v go-tpc || echo bench/tools/go-tpc)}
[[ -x $FB ]] || cargo build --release --quiet
if [[ ! -x $GOTPC ]]; then
    echo "go-tpc not found: go install github.com/pingcap/go-tpc/cmd/go-tpc@latest, or put it at bench/tools/go-tpc (GOTPC=path)" >&2
    exit 2
fi
export FAIRBENCH_SANDBOX_ROOT
FAIRBENCH_SANDBOX_ROOT=$(mktemp -d "/tmp/$NAME.XXXXXX")
# The server runs as its own account, which must enter the directory.
chmod o+x "$FAIRBENCH_SANDBOX_ROOT"
WORK=$FAIRBENCH_SANDBOX_ROOT/work
mkdir -p "$WORK"
trap '"$FB" server stop --all >/dev/null 2>&1 || true; rm -rf "$FAIRBENCH_SANDBOX_ROOT"' EXIT
sets=()
for s in "${SERVER_SET[@]}"; do sets+=(--set "$s"); done
"$FB" server start mariadb --port "$PORT" "${sets[@]}" >/dev/null
FBURL=mysql://fairbench:fairbench@127.0.0.1:$PORT/fairbench
GOURL=mysql://fairbench:fairbench@127.0.0.1:$PORT/gotpc
my() { mysql -h127.0.0.1 -P"$PORT" -ufairbench -pfairbench -N -B "$@"; }
my -e "CREATE DATABASE IF NOT EXISTS gotpc"
GO=(-H 127.0.0.1 -P "$PORT" -U fairbench -p fairbench -D gotpc)

# $1: a name; the rest: the command. Appends "name wall user sys maxrss_kb" to $WORK/times.
timed() {
    local name=$1
    shift
    /usr/bin/time -f "$name %e %U %S %M" -a -o "$WORK/times" "$@" >"$WORK/$name.out" 2>&1
}
