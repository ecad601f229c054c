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

go=$(command -v go || true)
[[ -z $go && -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
if [[ -z $go ]]; then
    echo "fairbench: building Vitess needs a Go toolchain (1.26 or newer): install Go" >&2
    exit 1
fi

mkdir -p "$dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-vitess-build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/src"
log=$dir/vitess-build.log
echo "fairbench: building Vitess $FB_VITESS_VERSION into $dir (once; about 6 minutes)" >&2
(
    cd "$work/src"
    export GOPATH=$work/gopath GOMODCACHE=$work/gopath/pkg/mod GOCACHE=$work/cache GOFLAGS=-trimpath
    # Vitess's own go.mod says which Go it needs and what it excludes; the throwaway module
    # takes both from it.
    mod=$("$go" mod download -json "vitess.io/vitess@$FB_VITESS_VERSION" |
        sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
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
    for t in "${FB_VITESS_TOOLS[@]}"; do
        "$go" build -p 1 -o "$work/$t" "vitess.io/vitess/go/cmd/$t"
    done
) >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building Vitess failed (log above, in $log)" >&2
    exit 1
}
for t in "${FB_VITESS_TOOLS[@]}"; do mv "$work/$t" "$dir/$t"; done
echo "fairbench: Vitess built: ${FB_VITESS_TOOLS[*]} in $dir" >&2
