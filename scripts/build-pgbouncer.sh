#!/usr/bin/env bash
# Builds pgbouncer VERSION once, from Debian's source package of it, into DIR/pgbouncer-VERSION
# (bin/pgbouncer), and prints that directory: `fairbench server start pgbouncer --basedir` takes
# it. pgbouncer 1.21 and later keep protocol-level prepared statements across server
# connections in transaction pooling (max_prepared_statements, 200 by default from 1.22);
# Debian 12's pgbouncer 1.18 does not.
#
#   bash scripts/build-pgbouncer.sh [VERSION [DIR]]
#
# VERSION: one that a suite of Debian's archive holds now (trixie, forky or sid); default 1.24.1,
# trixie's. DIR: where `fairbench server start --version` looks, FAIRBENCH_ENGINE_CACHE when set,
# as root /var/cache/fairbench/engines (the sandbox's pgbouncer drops to the postgres account,
# which may not enter root's home), else ~/.cache/fairbench/engines.
# The source is checked against the SHA-256 its suite's Sources index gives. Needs curl, xz,
# gcc, make, pkg-config and the libevent and OpenSSL headers (libevent-dev, libssl-dev).
# Under a minute on 2 cores.
set -euo pipefail

version=${1:-1.24.1}
if [[ -n ${2:-} ]]; then
    dir=$2
elif [[ -n ${FAIRBENCH_ENGINE_CACHE:-} ]]; then
    dir=$FAIRBENCH_ENGINE_CACHE
elif [[ $(id -u) == 0 ]]; then
    dir=/var/cache/fairbench/engines
else
    dir=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fairbench/engines
fi
out=$dir/pgbouncer-$version
if [[ -x $out/bin/pgbouncer ]]; then
    echo "$out"
    exit 0
fi
die() {
    echo "fairbench: building pgbouncer $version: $*" >&2
    exit 1
}
for tool in curl xz gcc make pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install curl xz-utils gcc make pkg-config)"
done
pkg-config --exists libevent openssl || die "the libevent or OpenSSL headers are missing (apt-get install libevent-dev libssl-dev)"

# The archive the system's apt reads, else Debian's own.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/*$/\1/p; s/^deb *\(\[[^]]*\] *\)\{0,1\}\(http[^ ]*\/debian\)\/* .*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-pgbouncer.XXXXXX")
trap 'rm -rf "$work"' EXIT
orig="" sum="" pool=""
for suite in trixie forky sid; do
    curl -fsS --max-time 120 -o "$work/Sources.xz" "$mirror/dists/$suite/main/source/Sources.xz" 2>/dev/null || continue
    # The stanza of pgbouncer at VERSION: its directory and its upstream tarball's checksum.
    read -r pool orig sum < <(xz -dc "$work/Sources.xz" | awk -v want="$version" '
        /^Package: / { inpkg = ($2 == "pgbouncer"); ver = ""; dir = ""; insum = 0; next }
        !inpkg { next }
        /^Version: / { ver = $2; sub(/-[^-]*$/, "", ver); next }
        /^Directory: / { dir = $2; next }
        /^Checksums-Sha256:/ { insum = 1; next }
        /^[^ ]/ { insum = 0 }
        insum && $3 ~ /\.orig\.tar\.gz$/ { file = $3; sha = $1 }
        /^$/ { if (inpkg && ver == want && file != "") { print dir, file, sha; exit } inpkg = 0; file = "" }
    ') || true
    [[ -n $orig ]] && break
done
[[ -n $orig ]] || die "no Debian suite (trixie, forky, sid) at $mirror holds it; give a version one of them has (trixie: 1.24.1)"

echo "fairbench: building pgbouncer $version from $mirror/$pool/$orig into $out (once; under a minute)" >&2
curl -fsS --max-time 300 -o "$work/$orig" "$mirror/$pool/$orig" || die "could not download $mirror/$pool/$orig"
echo "$sum  $work/$orig" | sha256sum -c --quiet - >&2 || die "$orig does not match the SHA-256 of Debian's index"
tar -xzf "$work/$orig" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'pgbouncer*' | head -n 1)
log=$work/build.log
(
    cd "$src"
    # Names resolved by libevent's resolver (no c-ares), no PAM or systemd: a sandbox needs none.
    ./configure --prefix="$out.partial" --without-cares --without-pam --without-systemd &&
        make -j"$(nproc)" && make install
) >"$log" 2>&1 || {
    tail -n 20 "$log" >&2
    die "the build failed (above)"
}
rm -rf "$out"
mv "$out.partial" "$out"
echo "fairbench: pgbouncer $version built: $out/bin/pgbouncer" >&2
echo "$out"
