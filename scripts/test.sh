#!/usr/bin/env bash
# fairbench's test command:  bash scripts/test.sh [--keep-servers] [CARGO TEST ARGS] [-- TEST BINARY ARGS]
#
# 1. installs what is missing with apt-get (MariaDB server+client, PostgreSQL, sysbench, and
#    the C toolchain/OpenSSL headers the crate builds with). Rust/cargo itself must already be
#    installed: this script does not install it.
# 2. checks the code: `cargo fmt --check` and `cargo clippy --locked --all-targets -- -D warnings`
#    (installing the rustfmt/clippy components with rustup when they are missing)
# 3. starts throwaway MariaDB and PostgreSQL servers in a temp dir (scripts/servers.sh),
#    never the system services, and exports FAIRBENCH_TEST_* for the tests:
#      FAIRBENCH_TEST_MYSQL_URL, FAIRBENCH_TEST_MYSQL_SOCKET, FAIRBENCH_TEST_MYSQL_PORT,
#      FAIRBENCH_TEST_PG_URL, FAIRBENCH_TEST_PG_SOCKET_DIR, FAIRBENCH_TEST_PG_PORT,
#      FAIRBENCH_TEST_TMP, FAIRBENCH_TEST_CA, FAIRBENCH_TEST_WRONG_CA
#    Both servers offer TLS (certificates of a throwaway CA); the `fbssl` account may only
#    connect with it.
# 4. runs `cargo test --locked [ARGS] -- --test-threads=${FAIRBENCH_TEST_THREADS:-2} [ARGS]`
# 5. stops both servers and removes the temp dir, whatever happened, and exits with
#    cargo's exit code.
#
# --keep-servers  leave the servers running afterwards and print their export lines;
#                 stop them later with `bash scripts/servers.sh stop DIR`.
#
# Examples:
#   bash scripts/test.sh
#   bash scripts/test.sh --test mysql -- --nocapture
#   FAIRBENCH_TEST_THREADS=1 bash scripts/test.sh some_test_name

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/servers.sh
source "$here/servers.sh"
cd "$here/.."

keep=""
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
    fb_remove_policy
    if [[ -n $keep && -n $started ]]; then
        printf '\n# fairbench test servers left running; for your shell:\n'
        cat "$FB_DIR/env"
        printf '# stop them with: bash scripts/servers.sh stop %q\n' "$FB_DIR"
    else
        fb_stop "$FB_DIR"
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The packages first: clippy compiles the crate's native parts (ring, bundled SQLite).
fb_install_missing
# Formatting and lints before the servers: they need none and fail in seconds.
for comp in rustfmt clippy; do
    if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
        command -v rustup >/dev/null 2>&1 || fb_die "cargo $comp is missing and there is no rustup to add it"
        rustup component add "$comp" >&2
    fi
done
cargo fmt --check || fb_die "cargo fmt --check found unformatted code: run cargo fmt"
cargo clippy --locked --all-targets --quiet -- -D warnings || fb_die "cargo clippy found warnings (shown above)"

fb_start
started=1
# shellcheck disable=SC1091
source "$FB_DIR/env"

# cargo runs as a background job in a session of its own and the script waits for it: so a
# TERM sent to this script alone (e.g. by a CI timeout) is handled at once, and the exit trap
# can end the whole cargo/test process group before stopping the servers. A Ctrl-C reaches
# the script, whose trap does the same.
rc=0
setsid cargo test --locked "${cargo_args[@]+"${cargo_args[@]}"}" -- "${test_args[@]}" </dev/null &
cargo_pid=$!
wait "$cargo_pid" || rc=$?
cargo_pid=""

if ((rc != 0)); then
    fb_log "cargo test failed (exit $rc)"
    fb_report_dead "$FB_DIR"
fi
exit "$rc"
