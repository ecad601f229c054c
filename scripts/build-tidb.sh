#!/usr/bin/env bash
# Builds tidb-server once into ~/.cache/fairbench/bin (or $1), from TiDB's Go module.
#
#   bash scripts/build-tidb.sh [DIR]
#   bash scripts/build-tidb.sh --version 20250107104524-ab8c51ad2a6f   another commit, into
#                                    ~/.cache/fairbench/bin/tidb-VERSION, where
#                                    `fairbench server start tidb --version VERSION` (and
#                                    `sweep tidb --versions ...`) finds it
#
# `fairbench server start tidb` runs that binary (with its embedded unistore storage); the
# test command calls this first. TiDB publishes no release tags to the Go module proxy, so a
# throwaway module pins one commit by its pseudo-version, with the replaces TiDB's own go.mod
# carries. The build takes about 6 minutes and 2.4 GB of memory on 2 cores, and leaves some
# 6 GB of module and build cache, removed afterwards (scripts/go-build.sh), so only the 250 MB
# binary stays.
set -euo pipefail

FB_TIDB_COMMIT=20251126154744-e4e814fdc0af
bin=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin
if [[ ${1:-} == --version ]]; then
    # A pseudo-version's TIMESTAMP-COMMIT: v1.1.0-beta.0.TIMESTAMP-COMMIT is the module's version.
    [[ ${2:-} =~ ^[0-9]{14}-[0-9a-f]{12}$ ]] || {
        echo "fairbench: --version ${2:-}: give TIMESTAMP-COMMIT of a pseudo-version of github.com/pingcap/tidb (such as $FB_TIDB_COMMIT)" >&2
        exit 2
    }
    FB_TIDB_COMMIT=$2
    dir=$bin/tidb-$2
else
    dir=${1:-$bin}
fi
[[ -x $dir/tidb-server ]] && exit 0

# shellcheck source=scripts/go-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-build.sh"
fb_go_begin tidb 1.23
mkdir -p "$dir"
cat >"$work/src/go.mod" <<EOF
module fairbench.local/tidbbuild

go 1.23

require (
	github.com/pingcap/tidb v1.1.0-beta.0.$FB_TIDB_COMMIT
	github.com/pingcap/tidb/pkg/parser v0.0.0-$FB_TIDB_COMMIT
)

replace (
	github.com/go-ldap/ldap/v3 => github.com/YangKeao/ldap/v3 v3.4.5-0.20230421065457-369a3bab1117
	sourcegraph.com/sourcegraph/appdash => github.com/sourcegraph/appdash v0.0.0-20190731080439-ebfcffb1b5c0
	sourcegraph.com/sourcegraph/appdash-data => github.com/sourcegraph/appdash-data v0.0.0-20151005221446-73f23eafcf67
)
EOF
cat >"$work/src/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/pingcap/tidb/cmd/tidb-server"
EOF

echo "fairbench: building tidb-server into $dir (once; about 6 minutes)" >&2
log=$dir/tidb-build.log
(
    cd "$work/src"
    "$go" mod tidy &&
        "$go" build -ldflags -w -o "$work/tidb-server" github.com/pingcap/tidb/cmd/tidb-server
) >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building tidb-server failed (log above, in $log)" >&2
    exit 1
}
mv "$work/tidb-server" "$dir/tidb-server"
echo "fairbench: tidb-server built: $dir/tidb-server" >&2
