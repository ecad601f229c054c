#!/usr/bin/env bash
# Builds fairbench's container image from the release binary, without a registry or a
# base image: an OCI image archive holding the binary, the libraries it links (from this
# machine), CA certificates and a home for user 10001, as deploy/Dockerfile's image has.
#
#   cargo build --release
#   bash deploy/image.sh                       # -> fairbench-image.tar, image fairbench:0.1.0
#   ctr -n k8s.io images import fairbench-image.tar     # into a Kubernetes node's containerd
#   docker load -i fairbench-image.tar                  # Docker 25 or newer; podman load too
#
# Options: --name NAME:TAG (default fairbench:<version>), --entrypoint PATH in the image
# (default /usr/local/bin/fairbench), --user UID (default 10001), then BINARY (default
# target/release/fairbench) and OUT (default fairbench-image.tar). The same recipe makes
# the node's pause image (scripts/kubernetes-node.sh). The image runs where this machine's
# binaries run: same CPU architecture, and the libraries are copied from here.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
name=fairbench:$version
entry=/usr/local/bin/fairbench
user=10001
while (($#)); do
    case $1 in
    --name) name=$2; shift 2 ;;
    --entrypoint) entry=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --*) echo "deploy/image.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
    *) break ;;
    esac
done
bin=${1:-$root/target/release/fairbench}
out=${2:-fairbench-image.tar}
[[ -x $bin ]] || { echo "deploy/image.sh: $bin is not an executable (cargo build --release first)" >&2; exit 2; }
[[ $name == *:* ]] || name+=:latest

work=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
fs=$work/rootfs
mkdir -p "$fs$(dirname "$entry")" "$fs/work" "$fs/tmp" "$fs/etc/ssl/certs"
# Without its debug sections (a quarter of the size, symbols kept for backtraces).
if command -v strip >/dev/null; then
    strip --strip-debug -o "$fs$entry" "$bin"
else
    cp "$bin" "$fs$entry"
fi
# What the binary links, at the paths the dynamic loader looks for them.
ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$fs$(dirname "$lib")"
    cp -L "$lib" "$fs$lib"
done || true
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && cp /etc/ssl/certs/ca-certificates.crt "$fs/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/sbin/nologin\nfairbench:x:%s:%s:fairbench:/work:/sbin/nologin\n' "$user" "$user" >"$fs/etc/passwd"
printf 'root:x:0:\nfairbench:x:%s:\n' "$user" >"$fs/etc/group"

# One uncompressed layer, the same bytes for the same files (sorted, fixed times).
tar_opts=(--sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 -C "$fs")
tar "${tar_opts[@]}" --exclude=./work --exclude=./tmp -cf "$work/layer.tar" .
tar --sort=name --mtime=@0 --numeric-owner --owner="$user" --group="$user" -C "$fs" -rf "$work/layer.tar" ./work
chmod 1777 "$fs/tmp"
tar "${tar_opts[@]}" -rf "$work/layer.tar" ./tmp

mkdir -p "$work/oci/blobs/sha256"
blob() { # FILE -> its digest, the file stored as a blob
    local d
    d=$(sha256sum "$1" | cut -d' ' -f1)
    cp "$1" "$work/oci/blobs/sha256/$d"
    echo "$d"
}
size() { stat -c %s "$1"; }
layer=$(blob "$work/layer.tar")
cat >"$work/config.json" <<EOF
{"architecture":"amd64","os":"linux","config":{"User":"$user","Env":["PATH=/usr/local/bin:/usr/bin:/bin","HOME=/work"],"Entrypoint":["$entry"],"WorkingDir":"/work"},"rootfs":{"type":"layers","diff_ids":["sha256:$layer"]}}
EOF
config=$(blob "$work/config.json")
cat >"$work/manifest.json" <<EOF
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config","size":$(size "$work/config.json")},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$layer","size":$(size "$work/layer.tar")}]}
EOF
manifest=$(blob "$work/manifest.json")
# containerd names the image after io.containerd.image.name; Docker and podman after the
# ref name. A short name is Docker Hub's, as a registry would resolve it.
full=$name
if [[ $name != */* ]]; then
    full=docker.io/library/$name
elif [[ ! ${name%%/*} =~ [.:] && ${name%%/*} != localhost ]]; then
    full=docker.io/$name
fi
cat >"$work/oci/index.json" <<EOF
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$manifest","size":$(size "$work/manifest.json"),"annotations":{"io.containerd.image.name":"$full","org.opencontainers.image.ref.name":"${name##*:}"}}]}
EOF
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci/oci-layout"
tar --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 -C "$work/oci" -cf "$out" oci-layout index.json blobs
echo "deploy/image.sh: $out holds $full ($(($(size "$out") / 1048576)) MB)" >&2
