#!/usr/bin/env bash
# Throwaway MariaDB, PostgreSQL, TiDB and Vitess servers for fairbench's tests.
#
#   bash scripts/servers.sh start        install missing packages, start the servers in a new
#                                        temp dir, print `export FAIRBENCH_TEST_...` lines
#   bash scripts/servers.sh stop [DIR]   stop the servers living in DIR (default:
#                                        $FAIRBENCH_TEST_TMP) and remove DIR
#   bash scripts/servers.sh env [DIR]    print the export lines of DIR again
#   bash scripts/servers.sh install      only install the missing packages
#
# For a development loop:
#   eval "$(bash scripts/servers.sh start)"
#   cargo test ...
#   bash scripts/servers.sh stop
#
# scripts/test.sh sources this file, so the start/stop logic lives only here.
#
# The servers never touch the system services, their data directories, ports or sockets:
# everything lives in one `mktemp -d` directory (under ${TMPDIR:-/tmp}), on loopback ports
# of their own (MariaDB 13306, PostgreSQL 15432, TiDB 14000 and its status API 20080, or the
# next free ones).
#
# TiDB has no distribution package: scripts/build-tidb.sh builds tidb-server once into
# ~/.cache/fairbench/bin (about 6 minutes), and it runs in memory as a
# `fairbench server start tidb` sandbox of the fairbench built here (cargo build). Vitess
# likewise: scripts/build-vitess.sh builds its servers once, and a 2-shard cluster of Debian's
# MariaDB runs as a `fairbench server start vitess` sandbox (vtgate on 15306 or the next free
# block of ports).
#
# Tunables (environment):
#   FAIRBENCH_TEST_MYSQL_BASE_PORT  first port tried for MariaDB     (default 13306)
#   FAIRBENCH_TEST_PG_BASE_PORT     first port tried for PostgreSQL  (default 15432)
#   FAIRBENCH_TEST_START_TIMEOUT    seconds each server may take to come up (default 120)
#   FAIRBENCH_TIDB                  the tidb-server to run (default: build-tidb.sh's)
#   FAIRBENCH_VITESS_BINDIR         where vtgate, vttablet, vtctld, vtctldclient are (default:
#                                   build-vitess.sh's)

set -euo pipefail

FB_DB=fbtest
FB_USER=fb
FB_PASS=fbpass
# An account that may only connect over TLS (same password).
FB_SSL_USER=fbssl
# Marks a directory as one of ours, so `stop` never removes anything else.
FB_MARKER=.fairbench-test-servers

FB_DIR=""             # the temp dir of the servers being started (set by fb_start)
FB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The fairbench binary that runs the TiDB sandbox (scripts/test.sh sets its own).
FB_BIN=${FB_BIN:-$FB_REPO/target/debug/fairbench}
# Where scripts/build-tidb.sh puts tidb-server (and scripts/test.sh MinIO).
FB_CACHE_BIN=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin
FB_POLICY_CREATED=""  # policy-rc.d we created for the duration of an install, if any
FB_APTLOG=""          # apt-get's output during an install

fb_log() { printf 'fairbench-test: %s\n' "$*" >&2; }
fb_die() { printf 'fairbench-test: error: %s\n' "$*" >&2; exit 1; }

# Prints the last lines of a log file, indented, to stderr.
fb_tail() {
    local file=$1 n=${2:-30}
    if [[ -s $file ]]; then
        printf -- '----- last %s lines of %s -----\n' "$n" "$file" >&2
        tail -n "$n" "$file" | sed 's/^/  /' >&2
        printf -- '-----\n' >&2
    fi
}

fb_is_root() { [[ $(id -u) -eq 0 ]]; }

# ---------------------------------------------------------------------------------------
# Packages
# ---------------------------------------------------------------------------------------

fb_pkg_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

fb_pg_bindir() {
    # The newest PostgreSQL major installed the Debian way; else whatever initdb is on PATH.
    local d
    d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    if [[ -n $d && -x $d/initdb ]]; then
        echo "$d"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    fi
}

# Undoes what an install left behind: our policy-rc.d and apt's log (also run by exit traps).
fb_remove_policy() {
    if [[ -n $FB_POLICY_CREATED ]]; then
        "${FB_SUDO[@]+"${FB_SUDO[@]}"}" rm -f /usr/sbin/policy-rc.d || true
        FB_POLICY_CREATED=""
    fi
    if [[ -n $FB_APTLOG ]]; then
        rm -f "$FB_APTLOG"
        FB_APTLOG=""
    fi
}

FB_SUDO=()

fb_install_missing() {
    local missing=() p
    if command -v dpkg-query >/dev/null 2>&1; then
        # Servers and clients, the load generator the benchmarks are compared against, and
        # what the crate's native dependencies (openssl-sys, bundled SQLite, LuaJIT built
        # from source with gcc and make) need to build; sysbench also brings the Lua scripts
        # tests/lua.rs runs unmodified; the openssl CLI makes the servers' throwaway TLS
        # certificates; chromium renders the reports in tests.
        # The storage engines of `fairbench scenario engines` (MyRocks, S3, lz4 page compression).
        # The cluster targets of tests/pooler.rs, tests/standby.rs and tests/galera.rs:
        # pgbouncer and the Galera provider; libevent's headers, curl and xz for the newer
        # pgbouncer built from Debian's source (scripts/build-pgbouncer.sh).
        # The references of tests/hardware.rs: sysstat's pidstat and the Prometheus node exporter;
        # promtool (prometheus) checks the metrics endpoint's classic text format.
        # The PostgreSQL cluster of `server start patroni` (tests/patroni.rs): Patroni, etcd, and
        # the etcd client library Patroni's etcd3 support imports (one of patroni's alternatives).
        # Linux perf for --profile-server (tests/profile.rs).
        for p in mariadb-server mariadb-client sysbench pkg-config libssl-dev libevent-dev openssl gcc libc6-dev make curl xz-utils \
            mariadb-plugin-rocksdb mariadb-plugin-s3 mariadb-plugin-provider-lz4 chromium pgbouncer galera-4 \
            sysstat prometheus-node-exporter prometheus patroni etcd-server python3-etcd linux-perf; do
            fb_pkg_installed "$p" || missing+=("$p")
        done
        [[ -n $(fb_pg_bindir) ]] || missing+=(postgresql)
    else
        for p in mariadbd mariadb-install-db mariadb sysbench pkg-config openssl gcc make; do
            command -v "$p" >/dev/null 2>&1 || [[ -x /usr/sbin/$p ]] || missing+=("$p")
        done
        [[ -n $(fb_pg_bindir) ]] || missing+=(postgresql)
    fi
    [[ ${#missing[@]} -eq 0 ]] && return 0

    command -v apt-get >/dev/null 2>&1 ||
        fb_die "missing: ${missing[*]}, and there is no apt-get to install them"
    if ! fb_is_root; then
        command -v sudo >/dev/null 2>&1 ||
            fb_die "missing packages (${missing[*]}); not root and no sudo to install them"
        FB_SUDO=(sudo)
    fi

    fb_log "installing missing packages: ${missing[*]}"
    FB_APTLOG=$(mktemp "${TMPDIR:-/tmp}/fairbench-apt.XXXXXX")
    local aptlog=$FB_APTLOG
    # Installing mariadb-server/postgresql would otherwise start the system services (with
    # sysvinit scripts or systemd alike); policy-rc.d exit 101 = "do not start services".
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\n# temporary, from fairbench scripts/servers.sh\nexit 101\n' |
            "${FB_SUDO[@]+"${FB_SUDO[@]}"}" tee /usr/sbin/policy-rc.d >/dev/null
        FB_POLICY_CREATED=1
        "${FB_SUDO[@]+"${FB_SUDO[@]}"}" chmod 755 /usr/sbin/policy-rc.d
    fi
    local apt=("${FB_SUDO[@]+"${FB_SUDO[@]}"}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
        -o DPkg::Lock::Timeout=300)
    if ! "${apt[@]}" update >"$aptlog" 2>&1; then
        fb_tail "$aptlog" 40
        fb_remove_policy
        fb_die "apt-get update failed (log above)"
    fi
    if ! "${apt[@]}" install --no-install-recommends "${missing[@]}" >>"$aptlog" 2>&1 </dev/null; then
        fb_tail "$aptlog" 40
        fb_remove_policy
        fb_die "apt-get install ${missing[*]} failed (log above)"
    fi
    fb_remove_policy
    fb_log "installed: ${missing[*]}"
}

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------

fb_find_cmd() {
    # /usr/sbin is often not on a non-root user's PATH.
    local c
    for c in "$@"; do
        if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
        if [[ -x /usr/sbin/$c ]]; then echo "/usr/sbin/$c"; return 0; fi
    done
    return 1
}

fb_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

fb_free_port() {
    local p=$1 i
    for ((i = 0; i < 200; i++)); do
        if ! fb_port_in_use "$p"; then echo "$p"; return 0; fi
        p=$((p + 1))
    done
    fb_die "no free TCP port in $1..$p on 127.0.0.1"
}

# Runs a command as the given service user when we are root (the servers refuse to run as
# root, or should not), as ourselves otherwise. Runs from / so that a cwd the service user
# cannot read (e.g. /root/...) causes no warnings.
fb_as() {
    local user=$1
    shift
    if fb_is_root && [[ $user != root ]]; then
        (cd / && runuser -u "$user" -- "$@")
    else
        (cd / && "$@")
    fi
}

# Is the process alive and does its command line mention our directory? (guards against
# acting on a recycled pid)
fb_pid_is_ours() {
    local pid=$1 dir=$2
    [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] &&
        tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$dir"
}

fb_chown() {
    local user=$1
    shift
    if fb_is_root && [[ $user != root ]]; then chown "$user:" "$@"; fi
}

fb_env_lines() {
    local dir=$1
    [[ -r $dir/env ]] || fb_die "$dir/env not found: is $dir a running fairbench test server dir?"
    cat "$dir/env"
}

# ---------------------------------------------------------------------------------------
# TLS
# ---------------------------------------------------------------------------------------

# Makes FB_DIR/tls: a throwaway CA (ca.pem), a server certificate it signs for 127.0.0.1
# and localhost (server.pem, server.key), and a second, unrelated CA (wrong-ca.pem) for
# tests that must see verification fail. Each server gets its own copy of the key.
fb_make_certs() {
    local dir=$FB_DIR/tls openssl
    openssl=$(fb_find_cmd openssl) || fb_die "openssl not found"
    mkdir -p "$dir"
    # Our own config, so that neither /etc/ssl/openssl.cnf nor $OPENSSL_CONF add extensions.
    cat >"$dir/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt             = no
[dn]
CN = fairbench test
[ca]
basicConstraints       = critical, CA:TRUE
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
[server]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, keyEncipherment
extendedKeyUsage       = serverAuth
subjectAltName         = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid
EOF
    local req=("$openssl" req -config "$dir/openssl.cnf" -newkey rsa:2048 -nodes)
    if ! (
        umask 077
        "${req[@]}" -x509 -days 30 -extensions ca -subj "/CN=fairbench test CA" \
            -keyout "$dir/ca.key" -out "$dir/ca.pem" &&
            "${req[@]}" -x509 -days 30 -extensions ca -subj "/CN=fairbench unrelated CA" \
                -keyout "$dir/wrong-ca.key" -out "$dir/wrong-ca.pem" &&
            "${req[@]}" -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" &&
            "$openssl" x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
                -CAcreateserial -days 30 -extfile "$dir/openssl.cnf" -extensions server \
                -out "$dir/server.pem"
    ) >"$dir/openssl.log" 2>&1 </dev/null; then
        fb_tail "$dir/openssl.log" 20
        fb_die "could not make the test TLS certificates (log above)"
    fi
    chmod 755 "$dir"
    chmod 644 "$dir/ca.pem" "$dir/wrong-ca.pem" "$dir/server.pem"
}

# ---------------------------------------------------------------------------------------
# MariaDB
# ---------------------------------------------------------------------------------------

fb_start_mysql() {
    local dir=$FB_DIR/mysql timeout=$1
    local mysqld install_db client user port pid deadline
    mysqld=$(fb_find_cmd mariadbd mysqld) || fb_die "mariadbd not found"
    install_db=$(fb_find_cmd mariadb-install-db mysql_install_db) || fb_die "mariadb-install-db not found"
    client=$(fb_find_cmd mariadb mysql) || fb_die "mariadb client not found"

    # mariadbd refuses to run as root unless told to; run it as the packaged `mysql` user.
    user=$(id -un)
    if fb_is_root; then
        if id mysql >/dev/null 2>&1; then user=mysql; else user=root; fi
    fi

    port=$(fb_free_port "${FAIRBENCH_TEST_MYSQL_BASE_PORT:-13306}")
    mkdir -p "$dir" "$dir/tmp"
    fb_chown "$user" "$dir" "$dir/tmp"
    cp "$FB_DIR/tls/server.key" "$dir/server-key.pem"
    chmod 600 "$dir/server-key.pem"
    fb_chown "$user" "$dir/server-key.pem"

    # Only this file is read (--defaults-file), so neither /etc/mysql nor ~/.my.cnf leak in.
    # Debian 12's own server config differs from the compiled-in defaults only in
    # character set/collation (and paths), so those two are repeated here.
    cat >"$dir/my.cnf" <<EOF
[mysqld]
user                    = $user
datadir                 = $dir/data
socket                  = $dir/mysqld.sock
pid-file                = $dir/mysqld.pid
log-error               = $dir/error.log
# Not \$TMPDIR, which the server would inherit but may not be allowed to write to.
tmpdir                  = $dir/tmp
port                    = $port
bind-address            = 127.0.0.1
skip-name-resolve
# Debian's default too (log_bin is off there); stated so nobody wonders.
skip-log-bin
character-set-server    = utf8mb4
collation-server        = utf8mb4_general_ci
# Tests load data with LOAD DATA LOCAL and open many connections.
local-infile            = ON
max-connections         = 2000
innodb-buffer-pool-size = 256M
innodb-log-file-size    = 256M
# Where the server's time goes per transaction is read from performance_schema's timers.
performance-schema      = ON
# TLS is offered to every account and required only by $FB_SSL_USER.
ssl-ca                  = $FB_DIR/tls/ca.pem
ssl-cert                = $FB_DIR/tls/server.pem
ssl-key                 = $dir/server-key.pem
EOF

    # Run by mariadb-install-db at the end of bootstrap: the test account and database.
    # FLUSH PRIVILEGES loads the grant tables, which bootstrap mode starts without.
    cat >"$dir/init.sql" <<EOF
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS \`$FB_DB\`;
CREATE USER '$FB_USER'@'%' IDENTIFIED BY '$FB_PASS';
CREATE USER '$FB_USER'@'localhost' IDENTIFIED BY '$FB_PASS';
GRANT ALL PRIVILEGES ON *.* TO '$FB_USER'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '$FB_USER'@'localhost' WITH GRANT OPTION;
CREATE USER '$FB_SSL_USER'@'%' IDENTIFIED BY '$FB_PASS' REQUIRE SSL;
GRANT ALL PRIVILEGES ON \`$FB_DB\`.* TO '$FB_SSL_USER'@'%';
EOF
    fb_chown "$user" "$dir/my.cnf" "$dir/init.sql"

    local user_opt=()
    fb_is_root && user_opt=(--user="$user")
    if ! (cd / && "$install_db" --defaults-file="$dir/my.cnf" "${user_opt[@]}" \
        --skip-test-db --skip-name-resolve --extra-file="$dir/init.sql") \
        >"$dir/install.log" 2>&1 </dev/null; then
        fb_tail "$dir/install.log" 40
        fb_tail "$dir/error.log" 20
        fb_die "mariadb-install-db failed (log above)"
    fi

    # setsid: its own session, so a Ctrl-C in the terminal reaches only the test run and the
    # exit trap stops the server cleanly. Started from a subshell so that it is not a job of
    # this shell (whose "Killed" notices would clutter the output of a crash test).
    (
        cd /
        setsid "$mysqld" --defaults-file="$dir/my.cnf" "${user_opt[@]}" \
            >>"$dir/stdout.log" 2>&1 </dev/null &
        echo $! >"$FB_DIR/mysql.launch.pid"
    )
    pid=$(<"$FB_DIR/mysql.launch.pid")

    deadline=$((SECONDS + timeout))
    until MYSQL_PWD=$FB_PASS "$client" --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" \
        -u"$FB_USER" --connect-timeout=2 -N -B -e 'SELECT 1' "$FB_DB" >/dev/null 2>&1; do
        if ! kill -0 "$pid" 2>/dev/null; then
            fb_tail "$dir/error.log" 30
            fb_tail "$dir/stdout.log" 10
            fb_die "MariaDB exited during start-up (log above)"
        fi
        if ((SECONDS >= deadline)); then
            fb_tail "$dir/error.log" 30
            fb_die "MariaDB did not accept connections on 127.0.0.1:$port within ${timeout}s (log above)"
        fi
        sleep 0.2
    done
    MYSQL_PWD=$FB_PASS "$client" --no-defaults --protocol=SOCKET -S "$dir/mysqld.sock" \
        -u"$FB_USER" -N -B -e 'SELECT 1' "$FB_DB" >/dev/null 2>&1 ||
        fb_die "MariaDB accepts TCP but not its socket $dir/mysqld.sock"

    # mariadbd silently lowers max_connections when the open-files limit is too low.
    local maxconn
    maxconn=$(MYSQL_PWD=$FB_PASS "$client" --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" \
        -u"$FB_USER" -N -B -e 'SELECT @@max_connections')
    if [[ $maxconn != 2000 ]]; then
        fb_log "warning: MariaDB runs with max_connections=$maxconn, not 2000 (open-files limit $(ulimit -n)?)"
    fi
    MYSQL_PWD=$FB_PASS "$client" --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" --ssl \
        -u"$FB_SSL_USER" -N -B -e 'SELECT 1' "$FB_DB" >/dev/null 2>&1 </dev/null ||
        fb_die "MariaDB does not accept $FB_SSL_USER over TLS on 127.0.0.1:$port (see $dir/error.log)"

    FB_MYSQL_PORT=$port
    FB_MYSQL_SOCKET=$dir/mysqld.sock
}

fb_stop_mysql() {
    local dir=$1 pid="" f
    for f in "$dir/mysql/mysqld.pid" "$dir/mysql.launch.pid"; do
        [[ -r $f ]] || continue
        pid=$(<"$f")
        fb_pid_is_ours "$pid" "$dir" && break
        pid=""
    done
    [[ -n $pid ]] || return 0
    # SIGTERM = normal shutdown (InnoDB flushes and exits).
    fb_term_then_kill "$pid" "$dir" MariaDB 60
}

# Sends SIGTERM to PID (a server of DIR) and waits up to SECS seconds for it to end, then
# SIGKILL and up to 10 s more.  $3: the server's name for the log line.
fb_term_then_kill() {
    local pid=$1 dir=$2 name=$3 secs=$4 i
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 10; i++)); do
        fb_pid_is_ours "$pid" "$dir" || return 0
        sleep 0.1
    done
    fb_log "$name (pid $pid) did not stop within ${secs}s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        fb_pid_is_ours "$pid" "$dir" || return 0
        sleep 0.1
    done
}

# ---------------------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------------------

fb_start_pg() {
    local dir=$FB_DIR/pg timeout=$1
    local bindir user port
    bindir=$(fb_pg_bindir)
    [[ -n $bindir ]] || fb_die "PostgreSQL binaries (initdb) not found"

    # PostgreSQL refuses to run as root: use the packaged `postgres` user.
    user=$(id -un)
    if fb_is_root; then
        id postgres >/dev/null 2>&1 || fb_die "running as root but there is no 'postgres' user to run PostgreSQL as"
        user=postgres
    fi

    port=$(fb_free_port "${FAIRBENCH_TEST_PG_BASE_PORT:-15432}")
    mkdir -p "$dir"
    fb_chown "$user" "$dir"
    printf '%s\n' "$FB_PASS" >"$dir/pwfile"
    fb_chown "$user" "$dir/pwfile"

    # The bootstrap superuser is `fb` itself; scram-sha-256 everywhere (initdb's default is
    # trust). UTF8/C.UTF-8 explicitly: with an unset or C locale initdb would pick SQL_ASCII.
    if ! fb_as "$user" "$bindir/initdb" -D "$dir/data" -U "$FB_USER" --pwfile="$dir/pwfile" \
        --auth-local=scram-sha-256 --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 </dev/null; then
        fb_tail "$dir/initdb.log" 40
        fb_die "initdb failed (log above)"
    fi
    rm -f "$dir/pwfile"

    cat >>"$dir/data/postgresql.conf" <<EOF

# --- fairbench test server ---
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 1200
shared_buffers = 256MB
fsync = on
# Where the server's time goes: statements by shape.
shared_preload_libraries = 'pg_stat_statements'
ssl = on
ssl_cert_file = '$FB_DIR/tls/server.pem'
ssl_key_file = '$dir/server.key'
EOF
    cp "$FB_DIR/tls/server.key" "$dir/server.key"
    chmod 600 "$dir/server.key"
    fb_chown "$user" "$dir/server.key"

    # First match wins: $FB_SSL_USER may connect over TCP with TLS only, never without it
    # nor through the socket. Everyone else keeps initdb's lines (TLS optional).
    local hba
    hba=$(<"$dir/data/pg_hba.conf")
    {
        printf '# --- fairbench test server ---\n'
        printf 'local     all %s              reject\n' "$FB_SSL_USER"
        printf 'hostnossl all %s 0.0.0.0/0    reject\n' "$FB_SSL_USER"
        printf 'hostnossl all %s ::/0         reject\n' "$FB_SSL_USER"
        printf 'hostssl   all %s 127.0.0.1/32 scram-sha-256\n' "$FB_SSL_USER"
        printf 'hostssl   all %s ::1/128      scram-sha-256\n\n' "$FB_SSL_USER"
        printf '%s\n' "$hba"
    } >"$dir/data/pg_hba.conf"

    # pg_ctl -w waits until the server accepts connections (or the timeout); pg_ctl also
    # puts the server in its own session, out of reach of a terminal Ctrl-C.
    if ! fb_as "$user" "$bindir/pg_ctl" start -D "$dir/data" -l "$dir/postgres.log" \
        -w -t "$timeout" -s >"$dir/pg_ctl.log" 2>&1 </dev/null; then
        fb_tail "$dir/postgres.log" 30
        fb_tail "$dir/pg_ctl.log" 10
        fb_die "PostgreSQL did not start on 127.0.0.1:$port within ${timeout}s (log above)"
    fi

    local psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -U "$FB_USER")
    if ! PGPASSWORD=$FB_PASS "${psql[@]}" -h "$dir" -p "$port" -d postgres \
        -c "CREATE DATABASE $FB_DB" >"$dir/createdb.log" 2>&1 </dev/null; then
        fb_tail "$dir/createdb.log" 10
        fb_tail "$dir/postgres.log" 20
        fb_die "could not create database $FB_DB in PostgreSQL (log above)"
    fi
    PGPASSWORD=$FB_PASS "${psql[@]}" -h 127.0.0.1 -p "$port" -d "$FB_DB" -c 'SELECT 1' \
        >/dev/null 2>&1 </dev/null ||
        fb_die "PostgreSQL accepts its socket but not TCP on 127.0.0.1:$port"
    if ! PGPASSWORD=$FB_PASS "${psql[@]}" -h "$dir" -p "$port" -d "$FB_DB" \
        -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" \
        -c "CREATE ROLE $FB_SSL_USER LOGIN PASSWORD '$FB_PASS'" \
        -c "GRANT ALL ON DATABASE $FB_DB TO $FB_SSL_USER" \
        -c "GRANT ALL ON SCHEMA public TO $FB_SSL_USER" >"$dir/createrole.log" 2>&1 </dev/null; then
        fb_tail "$dir/createrole.log" 10
        fb_die "could not create role $FB_SSL_USER in PostgreSQL (log above)"
    fi
    PGPASSWORD=$FB_PASS PGSSLMODE=require "$bindir/psql" -X -q -U "$FB_SSL_USER" -h 127.0.0.1 \
        -p "$port" -d "$FB_DB" -c 'SELECT 1' >/dev/null 2>&1 </dev/null ||
        fb_die "PostgreSQL does not accept $FB_SSL_USER over TLS on 127.0.0.1:$port (see $dir/postgres.log)"

    FB_PG_PORT=$port
    FB_PG_SOCKET_DIR=$dir
}

fb_stop_pg() {
    local dir=$1 data=$1/pg/data bindir user pid i
    [[ -r $data/postmaster.pid ]] || return 0
    bindir=/usr/lib/postgresql/$(cat "$data/PG_VERSION" 2>/dev/null)/bin
    [[ -x $bindir/pg_ctl ]] || bindir=$(fb_pg_bindir)
    user=$(stat -c %U "$data")
    # fast = roll back open transactions, disconnect clients, then a clean shutdown.
    if [[ -n $bindir ]] &&
        fb_as "$user" "$bindir/pg_ctl" stop -D "$data" -m fast -w -t 60 -s >/dev/null 2>&1; then
        return 0
    fi
    [[ -r $data/postmaster.pid ]] || return 0
    fb_log "PostgreSQL did not stop cleanly; stopping it immediately"
    [[ -n $bindir ]] &&
        fb_as "$user" "$bindir/pg_ctl" stop -D "$data" -m immediate -w -t 30 -s >/dev/null 2>&1 && return 0
    pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
    if fb_pid_is_ours "$pid" "$dir"; then
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do
            fb_pid_is_ours "$pid" "$dir" || break
            sleep 0.1
        done
    fi
}

# ---------------------------------------------------------------------------------------
# TiDB
# ---------------------------------------------------------------------------------------

# Builds tidb-server into DIR (default: the cache) unless it is there. Required: the TiDB
# test server needs it, so a failed build ends the script.
fb_build_tidb() {
    bash "$FB_REPO/scripts/build-tidb.sh" "${1:-$FB_CACHE_BIN}" ||
        fb_die "building tidb-server failed (above): the TiDB test server needs it; retry with: bash scripts/build-tidb.sh"
}

# Starts TiDB in memory as a sandbox in FB_DIR/tidb with the test account and database (no
# TLS), with the fairbench binary FB_BIN. $1: seconds it may take to come up.
fb_start_tidb() {
    local timeout=$1 out
    out=$(FAIRBENCH_TIDB=${FAIRBENCH_TIDB:-$FB_CACHE_BIN/tidb-server} "$FB_BIN" server start tidb \
        --dir "$FB_DIR/tidb" --user "$FB_USER" --password "$FB_PASS" --database "$FB_DB" \
        --timeout "$timeout" --env </dev/null) ||
        fb_die "could not start the TiDB test server (above)"
    FB_TIDB_PORT=$(sed -n "s/^export FAIRBENCH_SANDBOX_PORT=//p" <<<"$out")
    FB_TIDB_STATUS_PORT=$(sed -n "s/^export FAIRBENCH_SANDBOX_STATUS_PORT=//p" <<<"$out")
}

fb_stop_tidb() {
    local dir=$1/tidb pid
    [[ -e $dir/sandbox.json ]] || return 0
    [[ -x $FB_BIN ]] && "$FB_BIN" server stop "$dir" >/dev/null 2>&1 </dev/null && return 0
    # No fairbench to ask: what `server stop` does, by the pid it recorded.
    pid=$(cat "$dir/launch.pid" 2>/dev/null || true)
    fb_pid_is_ours "$pid" "$dir" || return 0
    fb_term_then_kill "$pid" "$dir" TiDB 30
}

# ---------------------------------------------------------------------------------------
# Vitess
# ---------------------------------------------------------------------------------------

# Builds Vitess's servers into DIR (default: the cache) unless they are there. Required: the
# Vitess test cluster needs them, so a failed build ends the script.
fb_build_vitess() {
    bash "$FB_REPO/scripts/build-vitess.sh" "${1:-$FB_CACHE_BIN}" ||
        fb_die "building Vitess failed (above): the Vitess test cluster needs it; retry with: bash scripts/build-vitess.sh"
}

# Starts a 2-shard Vitess cluster as a sandbox in FB_DIR/vitess with the test account and
# database (the keyspace), with the fairbench binary FB_BIN. $1: seconds it may take.
fb_start_vitess() {
    local timeout=$1 out
    out=$(FAIRBENCH_VITESS_BINDIR=${FAIRBENCH_VITESS_BINDIR:-$FB_CACHE_BIN} "$FB_BIN" server start vitess \
        --shards 2 --dir "$FB_DIR/vitess" --user "$FB_USER" --password "$FB_PASS" --database "$FB_DB" \
        --timeout "$timeout" --env </dev/null) ||
        fb_die "could not start the Vitess test cluster (above)"
    FB_VITESS_URL=$(sed -n "s/^export FAIRBENCH_SANDBOX_URL=//p" <<<"$out" | tr -d "'")
    FB_VITESS_SHARD_URLS=$(sed -n "s/^export FAIRBENCH_SANDBOX_SHARD_URLS=//p" <<<"$out" | tr -d "'")
}

fb_stop_vitess() {
    local dir=$1/vitess
    [[ -e $dir/sandbox.json ]] || return 0
    [[ -x $FB_BIN ]] && "$FB_BIN" server stop "$dir" >/dev/null 2>&1 </dev/null && return 0
    # No fairbench to ask: every process started from the directory, at once.
    pkill -KILL -f -- "$dir/" 2>/dev/null || true
}

fb_vitess_env_lines() {
    printf 'export FAIRBENCH_TEST_VITESS_URL=%q\n' "$FB_VITESS_URL"
    printf 'export FAIRBENCH_TEST_VITESS_SHARD_URLS=%q\n' "$FB_VITESS_SHARD_URLS"
    # Where vtctldclient is, for the target's admin-port (reference tables).
    printf 'export FAIRBENCH_VITESS_BINDIR=%q\n' "${FAIRBENCH_VITESS_BINDIR:-$FB_CACHE_BIN}"
}

# ---------------------------------------------------------------------------------------
# Start / stop
# ---------------------------------------------------------------------------------------

# Picks the parent of the temp dir: ${TMPDIR:-/tmp}, unless the service users could not
# reach it or the unix socket paths would get too long (108 bytes on Linux).
fb_tmp_base() {
    local base=${TMPDIR:-/tmp}
    base=${base%/}
    [[ -n $base ]] || base=/tmp
    if ((${#base} > 60)); then
        fb_log "note: \$TMPDIR is too long for unix socket paths; using /tmp"
        base=/tmp
    fi
    echo "$base"
}

fb_make_dir() {
    local base
    base=$(fb_tmp_base)
    FB_DIR=$(mktemp -d "$base/fairbench-test.XXXXXX")
    touch "$FB_DIR/$FB_MARKER"
    chmod 755 "$FB_DIR"
    if fb_is_root && [[ $base != /tmp ]]; then
        local u
        for u in postgres mysql; do
            id "$u" >/dev/null 2>&1 || continue
            if ! runuser -u "$u" -- test -x "$FB_DIR" 2>/dev/null; then
                fb_log "note: user $u cannot reach $base; using /tmp"
                rm -rf "$FB_DIR"
                FB_DIR=$(mktemp -d /tmp/fairbench-test.XXXXXX)
                touch "$FB_DIR/$FB_MARKER"
                chmod 755 "$FB_DIR"
                break
            fi
        done
    fi
}

# Starts the servers; on success FB_DIR/env holds the export lines. Callers must have a
# trap that runs `fb_stop "$FB_DIR"` so that a failure half-way leaves nothing behind.
fb_start() {
    local timeout=${FAIRBENCH_TEST_START_TIMEOUT:-120} t0=$SECONDS
    # FB_WITH_TIDB=0: MariaDB and PostgreSQL only (bench/run.sh needs no TiDB).
    local tidb=${FB_WITH_TIDB:-1}
    # FB_WITH_VITESS=0: no Vitess cluster (by default, as FB_WITH_TIDB).
    local vitess=${FB_WITH_VITESS:-$tidb}
    fb_install_missing
    if [[ $tidb == 1 ]]; then fb_build_tidb; fi
    if [[ $vitess == 1 ]]; then fb_build_vitess; fi
    if [[ $tidb == 1 || $vitess == 1 ]]; then
        (cd "$FB_REPO" && cargo build --quiet --bin fairbench) ||
            fb_die "building fairbench failed (above): the TiDB and Vitess servers are fairbench sandboxes"
    fi
    fb_make_dir
    fb_make_certs
    fb_start_mysql "$timeout"
    fb_start_pg "$timeout"
    if [[ $tidb == 1 ]]; then fb_start_tidb "$timeout"; fi
    if [[ $vitess == 1 ]]; then fb_start_vitess "$timeout"; fi
    {
        printf 'export FAIRBENCH_TEST_TMP=%q\n' "$FB_DIR"
        printf 'export FAIRBENCH_TEST_MYSQL_URL=%q\n' \
            "mysql://$FB_USER:$FB_PASS@127.0.0.1:$FB_MYSQL_PORT/$FB_DB"
        printf 'export FAIRBENCH_TEST_MYSQL_SOCKET=%q\n' "$FB_MYSQL_SOCKET"
        printf 'export FAIRBENCH_TEST_MYSQL_PORT=%q\n' "$FB_MYSQL_PORT"
        printf 'export FAIRBENCH_TEST_PG_URL=%q\n' \
            "postgres://$FB_USER:$FB_PASS@127.0.0.1:$FB_PG_PORT/$FB_DB"
        printf 'export FAIRBENCH_TEST_PG_SOCKET_DIR=%q\n' "$FB_PG_SOCKET_DIR"
        printf 'export FAIRBENCH_TEST_PG_PORT=%q\n' "$FB_PG_PORT"
        if [[ $tidb == 1 ]]; then fb_tidb_env_lines; fi
        if [[ $vitess == 1 ]]; then fb_vitess_env_lines; fi
        printf 'export FAIRBENCH_TEST_CA=%q\n' "$FB_DIR/tls/ca.pem"
        printf 'export FAIRBENCH_TEST_WRONG_CA=%q\n' "$FB_DIR/tls/wrong-ca.pem"
    } >"$FB_DIR/env"
    fb_log "MariaDB on 127.0.0.1:$FB_MYSQL_PORT, PostgreSQL on 127.0.0.1:$FB_PG_PORT${FB_TIDB_PORT:+, TiDB on 127.0.0.1:$FB_TIDB_PORT (status $FB_TIDB_STATUS_PORT)}${FB_VITESS_URL:+, Vitess at ${FB_VITESS_URL%%\?*}} (up in $((SECONDS - t0))s, dir $FB_DIR)"
}

fb_tidb_env_lines() {
    printf 'export FAIRBENCH_TEST_TIDB_URL=%q\n' "mysql://$FB_USER:$FB_PASS@127.0.0.1:$FB_TIDB_PORT/$FB_DB"
    printf 'export FAIRBENCH_TEST_TIDB_PORT=%q\n' "$FB_TIDB_PORT"
    printf 'export FAIRBENCH_TEST_TIDB_STATUS_PORT=%q\n' "$FB_TIDB_STATUS_PORT"
}

# Stops the servers living in DIR and removes DIR. Safe to call on a half-started DIR, an
# already stopped one, or an empty argument.
fb_stop() {
    local dir=${1:-}
    [[ -n $dir && -d $dir ]] || return 0
    if [[ ! -e $dir/$FB_MARKER ]]; then
        fb_log "warning: $dir is not a fairbench test server dir; not touching it"
        return 0
    fi
    # The Kubernetes node of scripts/test.sh first: its pods talk to the servers.
    [[ -d $dir/kube ]] && { bash "$FB_REPO/scripts/kubernetes-node.sh" down "$dir/kube" || true; }
    fb_stop_vitess "$dir" || true
    fb_stop_tidb "$dir" || true
    fb_stop_pg "$dir" || true
    fb_stop_mysql "$dir" || true
    rm -rf "$dir"
}

# Which of the servers in DIR have died (for a post-mortem after failed tests).
fb_report_dead() {
    local dir=$1 pid
    [[ -d $dir ]] || return 0
    pid=$(cat "$dir/mysql/mysqld.pid" 2>/dev/null || true)
    if ! fb_pid_is_ours "$pid" "$dir"; then
        fb_log "MariaDB is no longer running"
        fb_tail "$dir/mysql/error.log" 30
    fi
    pid=$(head -n 1 "$dir/pg/data/postmaster.pid" 2>/dev/null || true)
    if ! fb_pid_is_ours "$pid" "$dir"; then
        fb_log "PostgreSQL is no longer running"
        fb_tail "$dir/pg/postgres.log" 30
    fi
    pid=$(cat "$dir/tidb/launch.pid" 2>/dev/null || true)
    if [[ -e $dir/tidb ]] && ! fb_pid_is_ours "$pid" "$dir"; then
        fb_log "TiDB is no longer running"
        fb_tail "$dir/tidb/tidb.log" 30
    fi
    if [[ -e $dir/vitess ]] && ! "$FB_BIN" server list 2>/dev/null | grep -q "^vitess-.* running .*$dir/vitess"; then
        fb_log "The Vitess cluster is no longer running"
        fb_tail "$dir/vitess/vtgate.log" 30
    fi
}

fb_main() {
    local cmd=${1:-}
    case $cmd in
    start)
        trap 'fb_remove_policy; fb_stop "$FB_DIR"' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        fb_start
        trap - EXIT INT TERM
        cat "$FB_DIR/env"
        fb_log "stop them with: bash scripts/servers.sh stop $FB_DIR"
        ;;
    stop)
        local dir=${2:-${FAIRBENCH_TEST_TMP:-}}
        [[ -n $dir ]] || fb_die "usage: servers.sh stop DIR (or set FAIRBENCH_TEST_TMP)"
        [[ -d $dir ]] || fb_die "$dir does not exist"
        [[ -e $dir/$FB_MARKER ]] || fb_die "$dir is not a fairbench test server dir"
        fb_stop "$dir"
        ;;
    env)
        local dir=${2:-${FAIRBENCH_TEST_TMP:-}}
        [[ -n $dir ]] || fb_die "usage: servers.sh env DIR (or set FAIRBENCH_TEST_TMP)"
        fb_env_lines "$dir"
        ;;
    install)
        trap 'fb_remove_policy' EXIT
        fb_install_missing
        ;;
    *)
        sed -n '2,31s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
        exit 2
        ;;
    esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    fb_main "$@"
fi
