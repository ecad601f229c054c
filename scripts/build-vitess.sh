#!/usr/bin/env bash
# Builds Vitess's servers once into ~/.cache/fairbench/bin (or $1), from Vitess's Go module.
#
#   bash scripts/build-vitess.sh [DIR]
#
# `fairbench server start vitess` runs them: vtgate, vttablet, vtctld and vtctldclient (each
# MariaDB behind a tablet is Debian's mariadbd, started by fairbench itself). `go install
# vitess.io/vitess/go/cmd/...@VERSION` refuses a module whose go.mod has `exclude` lines, so a
# throwaway module requires Vitess and repeats its exclude lines. About 6 minutes on 2 cores;
# the module and build caches live in a temp dir that is removed afterwards, so only the
# binaries (some 350 MB) stay.
set -euo pipefail

FB_VITESS_VERSION=v0.24.4
FB_VITESS_TOOLS=(vtgate vttablet vtctld vtctldclient)
dir=${1:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin}
have=1
for t in "${FB_VITESS_TOOLS[@]}"; do [[ -x $dir/$t ]] || have=0; done
((have)) && exit 0

# shellcheck source=scripts/go-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-build.sh"
fb_go_begin vitess 1.26
mkdir -p "$dir"
log=$dir/vitess-build.log
echo "fairbench: building Vitess $FB_VITESS_VERSION into $dir (once; about 6 minutes)" >&2
(
    cd "$work/src"
    # Vitess's own go.mod says which Go it needs and what it excludes; the throwaway module
    # takes both from it.
    mod=$(fb_go_mod_of "vitess.io/vitess@$FB_VITESS_VERSION")
    gover=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$mod" | head -n 1)
    {
        echo "module fairbench.local/vitessbuild"
        echo
        echo "go $gover"
        echo
        echo "require vitess.io/vitess $FB_VITESS_VERSION"
        echo
        grep '^exclude ' "$mod" || true
        sed -n '/^exclude (/,/^)/p' "$mod"
    } >go.mod
    {
        echo "//go:build tools"
        echo
        echo "package tools"
        echo
        for t in "${FB_VITESS_TOOLS[@]}"; do echo "import _ \"vitess.io/vitess/go/cmd/$t\""; done
    } >tools.go
    "$go" mod tidy
    mkdir -p "$work/out"
    "$go" build -ldflags -w -o "$work/out/" "${FB_VITESS_TOOLS[@]/#/vitess.io/vitess/go/cmd/}"
) >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building Vitess failed (log above, in $log)" >&2
    exit 1
}
for t in "${FB_VITESS_TOOLS[@]}"; do mv "$work/out/$t" "$dir/$t"; done
echo "fairbench: Vitess built: ${FB_VITESS_TOOLS[*]} in $dir" >&2
