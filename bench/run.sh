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
#   bash bench/run.sh --builds 0a90718 HEAD work --kinds pg-tcp,pg-tls,maria-socket --tables 1 --table-size 50000 --reps 5
#                                builds of fairbench against each other and sysbench (OLTP rows):
#                                each git revision is built once into ~/.cache/fairbench/builds/SHA
#                                ("work" is this working tree as it is); the tools alternate in
#                                rotating order; a section is added to bench/RESULTS-builds.md
#   bash bench/run.sh --builds 25ff1f3 work --kinds pg-tcp --busy 2   the same beside two nice-19 busy loops
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

# --builds REV...: the revisions to build and run against each other.
export FB_BENCH_COMMAND="$*"
revs=()
args=()
while (($#)); do
    if [[ $1 == --builds ]]; then
        shift
        while (($#)) && [[ $1 != --* ]]; do
            revs+=("$1")
            shift
        done
        ((${#revs[@]} >= 2)) || { echo "bench/run.sh: --builds needs two revisions or more (e.g. --builds 0a90718 HEAD)" >&2; exit 2; }
    else
        args+=("$1")
        shift
    fi
done

# The release binary of one revision, built once in a throwaway worktree
# (the builds share one target directory, so only what changed is rebuilt).
builds_dir=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/builds
build_rev() {
    local sha=$1 wt
    if [[ ! -x $builds_dir/$sha/fairbench ]]; then
        echo "bench: building $sha" >&2
        wt=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-build.XXXXXX")
        git worktree add --quiet --detach "$wt" "$sha" >&2
        if ! (cd "$wt" && CARGO_TARGET_DIR=$builds_dir/target cargo build --release --quiet >&2); then
            git worktree remove --force "$wt"
            echo "bench/run.sh: building $sha failed (above)" >&2
            return 1
        fi
        mkdir -p "$builds_dir/$sha"
        cp "$builds_dir/target/release/fairbench" "$builds_dir/$sha/fairbench"
        git worktree remove --force "$wt"
    fi
    echo "$builds_dir/$sha/fairbench"
}
pairs=()
for rev in "${revs[@]+"${revs[@]}"}"; do
    if [[ $rev == work ]]; then
        # HEAD's name, with a + when the sources differ from it.
        name=$(git rev-parse --short HEAD)
        git diff --quiet HEAD -- src Cargo.toml Cargo.lock build.rs || name+=+
        path=$fb
    else
        sha=$(git rev-parse --verify --quiet "$rev^{commit}") ||
            { echo "bench/run.sh: '$rev' is not a revision of this repository (give a commit, a tag, HEAD~2 or work)" >&2; exit 2; }
        name=$(git rev-parse --short "$sha")
        path=$(build_rev "$sha") || exit 1
    fi
    pairs+=("$name=$path")
done
if ((${#pairs[@]})); then
    fb=${pairs[-1]#*=}
    args+=(--builds "$(IFS=,; echo "${pairs[*]}")")
fi

own=""
if [[ -z ${FAIRBENCH_TEST_TMP:-} ]]; then
    env_lines=$(FB_WITH_TIDB=0 bash scripts/servers.sh start)
    eval "$env_lines"
    own=1
    trap 'bash scripts/servers.sh stop "$FAIRBENCH_TEST_TMP"' EXIT
fi
python3 "$here/bench.py" --fairbench "$fb" "${args[@]+"${args[@]}"}"
