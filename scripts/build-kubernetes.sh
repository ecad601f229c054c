#!/usr/bin/env bash
# Builds a one-node Kubernetes (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet, kubectl) once into ~/.cache/fairbench/bin (or $1), from Kubernetes' Go module.
#
#   bash scripts/build-kubernetes.sh [DIR]
#
# scripts/kubernetes-node.sh runs them; the test command calls this first. `go install` of
# k8s.io/kubernetes is refused (its go.mod replaces its staging modules with local paths),
# so a throwaway module requires it and points each staging module at its published
# v0.x twin. Stays on 1.34: 1.35 and later refuse cgroup v1 hosts by default. The build
# takes 11 to 15 minutes on 2 cores and leaves some 7 GB of module and build cache, removed
# afterwards (scripts/go-build.sh), so only the binaries (about 300 MB) stay.
set -euo pipefail

FB_KUBERNETES_VERSION=1.34.4
dir=${1:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fairbench/bin}
tools=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
missing=0
for t in "${tools[@]}"; do [[ -x $dir/$t ]] || missing=1; done
((missing)) || exit 0

# shellcheck source=scripts/go-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-build.sh"
fb_go_begin kubernetes 1.24
mkdir -p "$dir" "$work/out"
staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
    cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
    kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
    mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller)
{
    echo "module fairbench.local/kubernetesbuild"
    echo
    echo "go 1.24"
    echo
    echo "require k8s.io/kubernetes v$FB_KUBERNETES_VERSION"
    echo
    echo "replace ("
    for m in "${staging[@]}"; do echo "	k8s.io/$m => k8s.io/$m v0.${FB_KUBERNETES_VERSION#1.}"; done
    echo ")"
} >"$work/src/go.mod"
{
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    echo "import ("
    for t in "${tools[@]}"; do echo "	_ \"k8s.io/kubernetes/cmd/$t\""; done
    echo ")"
} >"$work/src/tools.go"

echo "fairbench: building Kubernetes $FB_KUBERNETES_VERSION into $dir (once; 11 to 15 minutes)" >&2
log=$dir/kubernetes-build.log
# The version the binaries report (kubectl version, the node's kubelet version).
v=k8s.io/component-base/version
minor=${FB_KUBERNETES_VERSION#1.}
ldflags="-s -w -X $v.gitVersion=v$FB_KUBERNETES_VERSION -X $v.gitMajor=1 -X $v.gitMinor=${minor%%.*} -X $v.gitTreeState=clean"
(
    cd "$work/src"
    export CGO_ENABLED=0
    "$go" mod tidy &&
        "$go" build "${fb_go_unoptimized[@]}" -ldflags "$ldflags" -o "$work/out/" "${tools[@]/#/k8s.io/kubernetes/cmd/}"
) >"$log" 2>&1 </dev/null || {
    tail -n 20 "$log" >&2
    echo "fairbench: building Kubernetes failed (log above, in $log)" >&2
    exit 1
}
for t in "${tools[@]}"; do mv "$work/out/$t" "$dir/$t"; done
echo "fairbench: Kubernetes built: ${tools[*]/#/$dir/}" >&2
