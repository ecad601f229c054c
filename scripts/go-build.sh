# Shared by the scripts that build Go programs from their modules (build-*.sh); sourced.
#
# fb_go_begin NAME MIN_GO sets `go` (the toolchain, at least MIN_GO) and `work` (a temp dir
# removed when the script exits), and exports the Go module and build caches:
#   - FAIRBENCH_GO_CACHE=DIR (the test command sets it for all its builds): one cache shared by
#     every build, so the modules TiDB, Vitess, Kubernetes and MinIO have in common (gRPC,
#     protobuf, etcd's client, Prometheus...) are downloaded and compiled once; its owner
#     removes it;
#   - otherwise a cache in `work`, removed with it (some GB each: only the binaries stay).
# Builds use every core (go's default -p) and leave out DWARF: the compiler makes none
# (-gcflags=all=-dwarf=false: go-ycsb's build took 14% less CPU, 319 against 370 s) and the
# linker writes none (-w: a shorter link); the symbol table stays, for perf's stacks of a
# profiled server (--profile-server). The compiler and linker collect their garbage only when
# one of them nears 2 GiB (GOGC=off GOMEMLIMIT=2GiB; the build's own processes, not the servers
# built): MinIO's build took 372 CPU-s against 425 with GOGC=400 (go-ycsb's had taken 266 at 400
# against 331 with Go's default), its largest process 2.1 GB.
# Programs whose speed no test measures (Kubernetes' control plane, MinIO) are compiled without
# optimizations nor inlining ("${fb_go_unoptimized[@]}" on their go build's command line, which
# overrides GOFLAGS' -gcflags): go-ycsb's build took 22% less CPU (293 against 378 CPU-s).
fb_go_unoptimized=(-gcflags="all=-N -l -dwarf=false")

fb_go_begin() {
    local name=$1 min=$2 have
    go=$(command -v go || true)
    [[ -z $go && -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
    if [[ -z $go ]]; then
        echo "fairbench: building $name needs a Go toolchain ($min or newer): install Go" >&2
        exit 1
    fi
    have=$("$go" env GOVERSION 2>/dev/null | sed 's/^go//')
    if [[ $(printf '%s\n' "$min" "$have" | sort -V | head -n 1) != "$min" ]]; then
        echo "fairbench: building $name needs Go $min or newer, this is Go $have: install a newer Go" >&2
        exit 1
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-$name-build.XXXXXX")
    # shellcheck disable=SC2064  # expand work now
    trap "chmod -R u+w '$work' 2>/dev/null; rm -rf '$work'" EXIT
    mkdir -p "$work/src"
    local cache=${FAIRBENCH_GO_CACHE:-$work}
    export GOPATH=$cache/gopath GOMODCACHE=$cache/gopath/pkg/mod GOCACHE=$cache/cache GOFLAGS="-trimpath -gcflags=all=-dwarf=false" GOGC=off GOMEMLIMIT=2GiB
}

# The go.mod of a module at a version, downloaded into the module cache: its path.
fb_go_mod_of() {
    "$go" mod download -json "$1" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p'
}
