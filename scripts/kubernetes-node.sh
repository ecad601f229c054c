#!/usr/bin/env bash
# A throwaway one-node Kubernetes on loopback, everything under one directory:
#
#   bash scripts/kubernetes-node.sh up DIR      starts it; prints export lines (KUBECONFIG, ...)
#   bash scripts/kubernetes-node.sh load DIR IMAGE.tar   imports an image archive into the node
#   bash scripts/kubernetes-node.sh down DIR    stops everything it started, removes DIR
#
# etcd, containerd and runc are Debian's (installed when missing, as root); the Kubernetes
# binaries come from scripts/build-kubernetes.sh's cache (~/.cache/fairbench/bin, or
# FB_KUBE_BIN). The node serves the tests of deploy/kubernetes (tests/kubernetes.rs):
# - nothing listens beyond 127.0.0.1; the ports are FB_KUBE_PORT (the API server, default
#   16443, or 10 more while any of the seven is in use) and the ones after it (etcd +1, +2;
#   kubelet +3, +4; controller-manager +5; scheduler +6);
# - pods must use hostNetwork: the only network plugin is loopback (no image of a network
#   plugin can be pulled here), and pods reach servers on 127.0.0.1 that way;
# - no image is pulled: the pause image is built here (a static C program) and images
#   come in with `load` (deploy/image.sh makes fairbench's), so pods use
#   imagePullPolicy: Never or IfNotPresent;
# - containerd runs with restrict_oom_score_adj (root in a container may lack
#   CAP_SYS_RESOURCE), the kubelet with cgroupfs and cgroup v1 allowed (1.34 still runs
#   there), without QoS cgroups, swap allowed.
# Certificates: one throwaway CA; every component talks as an admin (system:masters).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
bin=${FB_KUBE_BIN:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin}
port=${FB_KUBE_PORT:-16443}

# True when nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The node's seven ports from $port on, moved up by tens past ports in use (another node,
# another test run).
pick_ports() {
    local tries=0 p
    while :; do
        for ((p = port; p < port + 7; p++)); do port_free "$p" || break; done
        ((p == port + 7)) && break
        ((++tries < 50)) || die "no 7 free ports from ${FB_KUBE_PORT:-16443} on (set FB_KUBE_PORT)"
        port=$((port + 10))
    done
    etcd_port=$((port + 1)) etcd_peer=$((port + 2)) kubelet_port=$((port + 3)) kubelet_health=$((port + 4))
    cm_port=$((port + 5)) sched_port=$((port + 6))
}
# The node's name is what the API server dials to reach the kubelet (logs, exec): the
# kubelet listens on 127.0.0.1 only, and a node IP may not be a loopback address.
node=localhost
pause=fairbench.local/pause:1

log() { echo "kubernetes-node: $*" >&2; }
die() {
    log "$*"
    exit 1
}

install_missing() {
    local want=() p
    command -v containerd >/dev/null || want+=(containerd)
    command -v runc >/dev/null || want+=(runc)
    [[ -x /usr/lib/cni/loopback ]] || want+=(containernetworking-plugins)
    command -v etcd >/dev/null || want+=(etcd-server)
    command -v openssl >/dev/null || want+=(openssl)
    command -v curl >/dev/null || want+=(curl)
    command -v ip >/dev/null || want+=(iproute2)
    command -v gcc >/dev/null || want+=(gcc libc6-dev)
    ((${#want[@]})) || return 0
    log "installing ${want[*]}"
    # The packages' own services stay down: this node runs its own daemons.
    p=/usr/sbin/policy-rc.d
    local had=0
    [[ -e $p ]] && had=1
    ((had)) || printf '#!/bin/sh\nexit 101\n' >"$p" && chmod +x "$p"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}" >&2
    ((had)) || rm -f "$p"
}

# NAME CMD...: runs CMD in its own session, its pid in DIR/NAME.pid, its output in DIR/logs.
start() {
    local name=$1
    shift
    setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
    echo $! >"$dir/$name.pid"
}

# Waits up to SECONDS for CMD to succeed; names WHAT and its log otherwise.
wait_for() {
    local what=$1 secs=$2 logname=$3
    shift 3
    local t=$((secs * 10))
    until "$@" >/dev/null 2>&1; do
        t=$((t - 1))
        if ((t <= 0)); then
            tail -n 20 "$dir/logs/$logname.log" >&2 || true
            die "$what did not come up within ${secs}s (log above: $dir/logs/$logname.log)"
        fi
        sleep 0.1
    done
}

certs() {
    local p=$dir/pki
    mkdir -p "$p"
    (
        cd "$p"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj /CN=fairbench-node-ca 2>/dev/null
        openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
        printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' >apiserver.ext
        openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile apiserver.ext 2>/dev/null
        openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
        openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 2>/dev/null
        openssl genrsa -out sa.key 2048 2>/dev/null
        openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    )
    cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: fairbench
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority: $p/ca.crt
users:
- name: admin
  user:
    client-certificate: $p/admin.crt
    client-key: $p/admin.key
contexts:
- name: fairbench
  context: {cluster: fairbench, user: admin, namespace: default}
current-context: fairbench
EOF
}

containerd_config() {
    mkdir -p "$dir/cni" "$dir/containerd"
    cat >"$dir/cni/10-loopback.conflist" <<'EOF'
{"cniVersion": "0.4.0", "name": "fairbench-loopback", "plugins": [{"type": "loopback"}]}
EOF
    cat >"$dir/containerd/config.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$dir/containerd.sock"
[ttrpc]
  address = "$dir/containerd-ttrpc.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni"
EOF
}

kubelet_config() {
    mkdir -p "$dir/kubelet" "$dir/pod-logs"
    cat >"$dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_health
containerRuntimeEndpoint: unix://$dir/containerd.sock
podLogsDir: $dir/pod-logs
cgroupDriver: cgroupfs
failCgroupV1: false
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $dir/pki/ca.crt}
authorization: {mode: AlwaysAllow}
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
}

ctr_() { ctr --address "$dir/containerd.sock" -n k8s.io "$@"; }

pause_image() {
    printf '%s\n' '#include <signal.h>' '#include <unistd.h>' 'static void bye(int s) { (void)s; _exit(0); }' \
        'int main(void) { signal(SIGTERM, bye); signal(SIGINT, bye); for (;;) pause(); }' >"$dir/pause.c"
    gcc -static -O2 -o "$dir/pause" "$dir/pause.c"
    bash "$root/deploy/image.sh" --name "$pause" --entrypoint /pause --user 65535 "$dir/pause" "$dir/pause.tar" 2>/dev/null
    ctr_ images import --no-unpack=false "$dir/pause.tar" >/dev/null 2>&1 || ctr_ images import "$dir/pause.tar" >/dev/null
}

up() {
    [[ $(id -u) == 0 ]] || die "needs root (containerd and the kubelet run as root)"
    for t in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
        [[ -x $bin/$t ]] || die "$bin/$t is missing: run scripts/build-kubernetes.sh first"
    done
    install_missing
    [[ -e $dir/kube-apiserver.pid ]] && die "$dir already holds a node (down it first)"
    mkdir -p "$dir/logs"
    dir=$(cd "$dir" && pwd)
    pick_ports
    certs
    containerd_config
    kubelet_config
    start etcd etcd --name fairbench-node --data-dir "$dir/etcd" \
        --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
        --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
        --initial-cluster "fairbench-node=http://127.0.0.1:$etcd_peer"
    start containerd containerd --config "$dir/containerd/config.toml"
    wait_for etcd 30 etcd curl -sf "http://127.0.0.1:$etcd_port/health"
    start kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
        --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$port" \
        --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
        --client-ca-file "$dir/pki/ca.crt" --authorization-mode RBAC \
        --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
        --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.0.0.0/24 \
        --kubelet-client-certificate "$dir/pki/admin.crt" --kubelet-client-key "$dir/pki/admin.key" \
        --kubelet-preferred-address-types Hostname
    wait_for kube-apiserver 90 kube-apiserver curl -sf --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" "https://127.0.0.1:$port/readyz"
    start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$dir/kubeconfig" \
        --bind-address 127.0.0.1 --secure-port "$cm_port" --leader-elect=false \
        --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt"
    start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$dir/kubeconfig" \
        --bind-address 127.0.0.1 --secure-port "$sched_port" --leader-elect=false
    wait_for containerd 30 containerd ctr_ version
    pause_image
    # The node's address in its status (which may not be loopback): the machine's first;
    # nothing is served on it.
    local ip
    ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
    [[ -n $ip ]] || die "the node needs a non-loopback IPv4 address for its status, and no interface has one"
    start kubelet "$bin/kubelet" --config "$dir/kubelet.yaml" --kubeconfig "$dir/kubeconfig" \
        --root-dir "$dir/kubelet" --cert-dir "$dir/kubelet/pki" --hostname-override "$node" --node-ip "$ip"
    export KUBECONFIG=$dir/kubeconfig
    wait_for "the node" 120 kubelet "$bin/kubectl" wait --for=condition=Ready "node/$node" --timeout=1s
    # Pods need the namespace's default service account, which the controller manager makes.
    wait_for "the default service account" 60 kube-controller-manager "$bin/kubectl" get serviceaccount default
    log "up: node $node Ready, API server https://127.0.0.1:$port"
    echo "export KUBECONFIG=$dir/kubeconfig"
    echo "export FAIRBENCH_TEST_KUBECTL=$bin/kubectl"
    echo "export FAIRBENCH_TEST_KUBE_DIR=$dir"
}

load() {
    local tar=$1
    [[ -S $dir/containerd.sock ]] || die "no node in $dir (up first)"
    ctr_ images import "$tar" >&2
}

# Stops a daemon by its pid file: TERM, then KILL after 10 s.
stop_pid() {
    local f=$dir/$1.pid pid t
    [[ -f $f ]] || return 0
    pid=$(cat "$f")
    kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for t in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    rm -f "$f"
}

down() {
    [[ -d $dir ]] || return 0
    dir=$(cd "$dir" && pwd)
    if [[ -f $dir/kubelet.pid ]]; then
        KUBECONFIG=$dir/kubeconfig timeout 20 "$bin/kubectl" delete jobs,pods --all --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
    fi
    stop_pid kubelet
    # The containers outlive the kubelet: kill their tasks, then containerd and its shims.
    if [[ -S $dir/containerd.sock ]]; then
        local c
        for c in $(ctr_ tasks list -q 2>/dev/null); do ctr_ tasks kill -s KILL "$c" >/dev/null 2>&1 || true; done
    fi
    stop_pid containerd
    pkill -KILL -f "containerd-shim-runc-v2 .*-address $dir/containerd.sock" 2>/dev/null || true
    for d in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop_pid "$d"; done
    # Whatever the pods mounted (rootfs overlays, shm, secrets) under DIR.
    awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$dir"
    log "down: $dir removed"
}

cmd=${1:-}
dir=${2:-}
[[ -n $cmd && -n $dir ]] || die "usage: kubernetes-node.sh up|down|load DIR [IMAGE.tar]"
case $cmd in
up) up ;;
down) down ;;
load) load "${3:?an image archive}" ;;
*) die "unknown command '$cmd' (up, down or load)" ;;
esac
