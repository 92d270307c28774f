#!/bin/bash
# Builds the Kubernetes binaries and etcd from the Go module proxy, stamped with their real versions, into
# $CHAINREACTION_CACHE/{kube,etcd}/<version>/bin. Idempotent: a stamp of the inputs makes a rebuild a no-op.
# Prints KUBE_BIN=<dir> and ETCD_BIN=<dir> on stdout; logs go to stderr.
. "$(dirname "$0")/../lib.sh"
HERE=$INFRA_DIR/kube-build
export GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod
command -v go >/dev/null || die "Go is needed to build Kubernetes (Debian: apt-get install golang-go, 1.24+)"

KUBE_OUT=$CHAINREACTION_CACHE/kube/$KUBERNETES_VERSION
ETCD_OUT=$CHAINREACTION_CACHE/etcd/$ETCD_VERSION
KUBE_CMDS=(kubelet kube-proxy kube-apiserver kube-controller-manager kube-scheduler kubeadm kubectl)

# Bump a recipe when the way that part is built changes; each part is rebuilt only when its own recipe or
# version changes.
KUBE_RECIPE=1
ETCD_RECIPE=2
KUBE_STAMP="kubernetes $KUBERNETES_VERSION recipe $KUBE_RECIPE"
ETCD_STAMP="etcd $ETCD_VERSION recipe $ETCD_RECIPE"

# wrapper_module <dir> <module> <version>: a module requiring k8s.io/kubernetes with one replace per staging
# module (every k8s.io/* that kubernetes' own go.mod requires at v0.0.0, served as v0.<minor>.<patch>).
kube_wrapper() {
  local dir=$1 mod staging_ver
  mkdir -p "$dir"
  staging_ver=v0.${KUBERNETES_VERSION#v1.}
  mod=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [[ -s $mod ]] || die "k8s.io/kubernetes@$KUBERNETES_VERSION is not served by the Go module proxy"
  {
    echo "module chainreaction.local/kube-build"
    echo
    echo "go $(sed -n 's/^go //p' "$mod")"
    echo
    echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
    echo
    grep -E '^\s+k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$mod" | awk -v v="$staging_ver" '{print "replace " $1 " => " $1 " " v}'
  } > "$dir/go.mod"
  {
    echo "//go:build tools"
    echo "package tools"
    echo "import ("
    for c in "${KUBE_CMDS[@]}"; do echo "	_ \"k8s.io/kubernetes/cmd/$c\""; done
    echo ")"
  } > "$dir/tools.go"
  (cd "$dir" && go mod tidy >&2)
}

etcd_wrapper() {
  local dir=$1
  mkdir -p "$dir"
  cat > "$dir/go.mod" <<EOT
module chainreaction.local/etcd-build

go 1.24

require (
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
	go.etcd.io/etcd/etcdctl/v3 $ETCD_VERSION
)
EOT
  printf '//go:build tools\npackage tools\nimport (\n\t_ "go.etcd.io/etcd/server/v3"\n\t_ "go.etcd.io/etcd/etcdctl/v3"\n)\n' > "$dir/tools.go"
  (cd "$dir" && go mod tidy >&2)
}

if [[ $(cat "$KUBE_OUT/stamp" 2>/dev/null) == "$KUBE_STAMP" && $(cat "$ETCD_OUT/stamp" 2>/dev/null) == "$ETCD_STAMP" ]]; then
  echo "KUBE_BIN=$KUBE_OUT/bin"; echo "ETCD_BIN=$ETCD_OUT/bin"; exit 0
fi

if [[ $(cat "$KUBE_OUT/stamp" 2>/dev/null) != "$KUBE_STAMP" ]]; then
  start=$SECONDS
  log "kube-build: building Kubernetes $KUBERNETES_VERSION (${KUBE_CMDS[*]}); a cold build takes 20-40 min on 2 cores"
  kube_wrapper "$KUBE_OUT/src"
  minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  pkgs=(); for c in "${KUBE_CMDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  mkdir -p "$KUBE_OUT/bin.new"
  (cd "$KUBE_OUT/src" && nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$KUBE_OUT/bin.new/" "${pkgs[@]}") \
    || die "kube-build: go build of Kubernetes failed (see above)"
  rm -rf "$KUBE_OUT/bin" && mv "$KUBE_OUT/bin.new" "$KUBE_OUT/bin"
  echo "$KUBE_STAMP" > "$KUBE_OUT/stamp"
  log "kube-build: Kubernetes built in $((SECONDS - start))s"
fi

if [[ $(cat "$ETCD_OUT/stamp" 2>/dev/null) != "$ETCD_STAMP" ]]; then
  start=$SECONDS
  log "kube-build: building etcd $ETCD_VERSION"
  etcd_wrapper "$ETCD_OUT/src"
  mkdir -p "$ETCD_OUT/bin.new"
  # Both mains are packages named .../v3: build each to its own name.
  (cd "$ETCD_OUT/src" && nice -n 10 go build -trimpath -ldflags "-s -w" -o "$ETCD_OUT/bin.new/etcd" go.etcd.io/etcd/server/v3 \
    && nice -n 10 go build -trimpath -ldflags "-s -w" -o "$ETCD_OUT/bin.new/etcdctl" go.etcd.io/etcd/etcdctl/v3) \
    || die "kube-build: go build of etcd failed (see above)"
  rm -rf "$ETCD_OUT/bin" && mv "$ETCD_OUT/bin.new" "$ETCD_OUT/bin"
  echo "$ETCD_STAMP" > "$ETCD_OUT/stamp"
  log "kube-build: etcd built in $((SECONDS - start))s"
fi
echo "KUBE_BIN=$KUBE_OUT/bin"; echo "ETCD_BIN=$ETCD_OUT/bin"
