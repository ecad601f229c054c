#!/usr/bin/env bash
# Builds go-ycsb (PingCAP's Go port of YCSB) once into ~/.cache/fairbench/bin (or $1), from
# its Go module, unmodified: bench/ycsb.py runs it beside fairbench's YCSB workload.
#
#   bash scripts/build-go-ycsb.sh [DIR]
#
# `go install github.com/pingcap/go-ycsb/cmd/go-ycsb@VERSION` refuses a module whose go.mod has
# `replace` lines (go-ycsb's pins apache/thrift), so a throwaway module requires go-ycsb and
# repeats its replace lines. No build tags, as go-ycsb's Makefile does when neither
# FoundationDB, RocksDB nor SQLite's C library is installed (all its other stores are pure Go
# and stay in). About 2.5 minutes on 2 cores with Go 1.26; the module and build caches live in
# a temp dir that is removed afterwards, so only the binary (some 99 MB, libc only) stays.
set -euo pipefail

FB_GO_YCSB_VERSION=v1.0.3
dir=${1:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin}
[[ -x $dir/go-ycsb ]] && exit 0

# shellcheck source=scripts/go-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-build.sh"
fb_go_begin go-ycsb 1.21
mkdir -p "$dir"
log=$dir/go-ycsb-build.log
echo "fairbench: building go-ycsb $FB_GO_YCSB_VERSION into $dir (once; about 3 minutes)" >&2
(
    cd "$work/src"
    # go-ycsb's own go.mod says which Go it needs and what it replaces; the throwaway module
    # takes both from it.
    mod=$(fb_go_mod_of "github.com/pingcap/go-ycsb@$FB_GO_YCSB_VERSION")
    gover=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$mod" | head -n 1)
    {
        echo "module fairbench.local/goycsbbuild"
        echo
        echo "go $gover"
        echo
        echo "require github.com/pingcap/go-ycsb $FB_GO_YCSB_VERSION"
        echo
        grep '^replace ' "$mod" || true
        sed -n '/^replace (/,/^)/p' "$mod"
    } >go.mod
    {
        echo "//go:build tools"
        echo
        echo "package tools"
        echo
        echo "import _ \"github.com/pingcap/go-ycsb/cmd/go-ycsb\""
    } >tools.go
    "$go" mod tidy
    "$go" build -ldflags -w -o "$work/go-ycsb" github.com/pingcap/go-ycsb/cmd/go-ycsb
) >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building go-ycsb failed (log above, in $log)" >&2
    exit 1
}
mv "$work/go-ycsb" "$dir/go-ycsb"
echo "fairbench: go-ycsb built: $dir/go-ycsb" >&2
