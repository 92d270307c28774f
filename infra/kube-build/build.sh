#!/bin/bash
# Builds the Kubernetes binaries and etcd from the Go module proxy, stamped with their real versions, into
#   $CHAINREACTION_CACHE/kube/$KUBERNETES_VERSION/bin   kubelet kube-proxy kube-apiserver kube-controller-manager
#                                                      kube-scheduler kubeadm kubectl
#   $CHAINREACTION_CACHE/etcd/$ETCD_VERSION/bin         etcd etcdctl
# from the committed wrapper modules kubernetes/ and etcd/ beside this script (see gen-modules.sh).
# Idempotent: each part has a stamp of its inputs (versions, Go version, flags, hashes of the wrapper module's
# files); when the stamp matches and every binary is there, nothing is built.
# stdout: exactly two lines, KUBE_BIN=<dir> and ETCD_BIN=<dir>. Logs go to stderr.
. "$(dirname "$0")/../lib.sh"
HERE=$INFRA_DIR/kube-build
export GOWORK=off CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false"
command -v go >/dev/null || die "kube-build: Go (1.26+) is needed to build Kubernetes and etcd"

KUBE_OUT=$CHAINREACTION_CACHE/kube/$KUBERNETES_VERSION
ETCD_OUT=$CHAINREACTION_CACHE/etcd/$ETCD_VERSION
KUBE_CMDS=(kubelet kube-proxy kube-apiserver kube-controller-manager kube-scheduler kubeadm kubectl)
ETCD_CMDS=(etcd etcdctl)

# module_dir <committed dir> <version> <cache src dir>: the wrapper module to build from. The committed one when it
# pins <version>, else the one generated into the cache (a versions.env change not yet followed by gen-modules.sh).
module_dir() {
  local committed=$1 ver=$2 gen=$3
  if awk -v m="${ver% *}" -v v="${ver#* }" '($1 == m && $2 == v) || ($1 == "require" && $2 == m && $3 == v) {f = 1}
      END {exit !f}' "$committed/go.mod" 2>/dev/null && [[ -s $committed/go.sum ]]; then echo "$committed"
  else echo "$gen"; fi
}
KUBE_MOD=$(module_dir "$HERE/kubernetes" "k8s.io/kubernetes $KUBERNETES_VERSION" "$KUBE_OUT/src")
ETCD_MOD=$(module_dir "$HERE/etcd" "go.etcd.io/etcd/server/v3 $ETCD_VERSION" "$ETCD_OUT/src")

minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
# Fixed build date: the same inputs give byte-identical binaries.
BUILD_DATE=1970-01-01T00:00:00Z
KUBE_LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  KUBE_LDFLAGS+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  KUBE_LDFLAGS+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$BUILD_DATE"
done
# etcd's version is a constant of go.etcd.io/etcd/api/v3/version; only the commit is stamped by its own build
# script, and a module carries none.
ETCD_LDFLAGS="-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=go-module"

# stamp <module dir> <ldflags> <cmds...>: everything that decides the binaries.
GO_ENV=$(go env GOVERSION GOOS GOARCH | paste -sd' ')
stamp() {
  local dir=$1 flags=$2; shift 2
  printf '%s\n' "go $GO_ENV CGO_ENABLED=$CGO_ENABLED -trimpath $GOFLAGS" \
    "ldflags $flags" "cmds $*"
  (cd "$dir" 2>/dev/null && sha256sum go.mod go.sum tools.go 2>/dev/null) || echo "module missing"
}
have_all() { local d=$1 b; shift; for b in "$@"; do [[ -x $d/$b ]] || return 1; done; }
up_to_date() { # <out dir> <stamp> <cmds...>
  local out=$1 want=$2; shift 2
  have_all "$out/bin" "$@" && [[ -f $out/stamp && $(<"$out/stamp") == "$want" ]]
}
done_() { echo "KUBE_BIN=$KUBE_OUT/bin"; echo "ETCD_BIN=$ETCD_OUT/bin"; exit 0; }

kube_stamp() { stamp "$KUBE_MOD" "$KUBE_LDFLAGS" "${KUBE_CMDS[@]}"; }
etcd_stamp() { stamp "$ETCD_MOD" "$ETCD_LDFLAGS" "${ETCD_CMDS[@]}"; }
if up_to_date "$KUBE_OUT" "$(kube_stamp)" "${KUBE_CMDS[@]}" && up_to_date "$ETCD_OUT" "$(etcd_stamp)" "${ETCD_CMDS[@]}"; then
  done_
fi

# One build at a time per cache; a second caller waits, then finds the work done.
mkdir -p "$CHAINREACTION_CACHE"
exec 9>"$CHAINREACTION_CACHE/kube-build.lock"
flock -n 9 || { log "kube-build: waiting for another build.sh to finish"; flock 9; }

# install_bin <out dir> <stamp>: swap the freshly built bin.new in, then record the stamp.
install_bin() {
  rm -rf "$1/bin" && mv "$1/bin.new" "$1/bin" && printf '%s\n' "$2" > "$1/stamp"
}

if ! up_to_date "$KUBE_OUT" "$(kube_stamp)" "${KUBE_CMDS[@]}"; then
  start=$SECONDS
  if [[ $KUBE_MOD == "$KUBE_OUT/src" ]]; then
    log "kube-build: $HERE/kubernetes does not pin $KUBERNETES_VERSION; generating the module into $KUBE_MOD" \
      "(run infra/kube-build/gen-modules.sh and commit kubernetes/ to make this build reproducible)"
    "$HERE/gen-modules.sh" kube "$KUBE_MOD"
  fi
  log "kube-build: building Kubernetes $KUBERNETES_VERSION (${KUBE_CMDS[*]}) from $KUBE_MOD;" \
    "a cold build takes 25-40 min on 2 cores, one with a warm Go cache under a minute"
  pkgs=(); for c in "${KUBE_CMDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  rm -rf "$KUBE_OUT/bin.new"; mkdir -p "$KUBE_OUT/bin.new"
  # One go build for all commands: they share most packages, compiled once.
  (cd "$KUBE_MOD" && nice -n 10 go build -trimpath -ldflags "$KUBE_LDFLAGS" -o "$KUBE_OUT/bin.new/" "${pkgs[@]}") \
    || die "kube-build: go build of Kubernetes failed (see above)"
  have_all "$KUBE_OUT/bin.new" "${KUBE_CMDS[@]}" || die "kube-build: go build did not produce all of: ${KUBE_CMDS[*]}"
  install_bin "$KUBE_OUT" "$(kube_stamp)"
  log "kube-build: Kubernetes built in $((SECONDS - start))s"
fi

if ! up_to_date "$ETCD_OUT" "$(etcd_stamp)" "${ETCD_CMDS[@]}"; then
  start=$SECONDS
  if [[ $ETCD_MOD == "$ETCD_OUT/src" ]]; then
    log "kube-build: $HERE/etcd does not pin $ETCD_VERSION; generating the module into $ETCD_MOD" \
      "(run infra/kube-build/gen-modules.sh and commit etcd/ to make this build reproducible)"
    "$HERE/gen-modules.sh" etcd "$ETCD_MOD"
  fi
  log "kube-build: building etcd $ETCD_VERSION (${ETCD_CMDS[*]}) from $ETCD_MOD"
  rm -rf "$ETCD_OUT/bin.new"; mkdir -p "$ETCD_OUT/bin.new"
  # Both mains are packages whose paths end in /v3, so -o dir/ would give both the same name: one build each
  # (the second reuses the first's compiled packages).
  (cd "$ETCD_MOD" &&
    nice -n 10 go build -trimpath -ldflags "$ETCD_LDFLAGS" -o "$ETCD_OUT/bin.new/etcd" go.etcd.io/etcd/server/v3 &&
    nice -n 10 go build -trimpath -ldflags "$ETCD_LDFLAGS" -o "$ETCD_OUT/bin.new/etcdctl" go.etcd.io/etcd/etcdctl/v3) \
    || die "kube-build: go build of etcd failed (see above)"
  install_bin "$ETCD_OUT" "$(etcd_stamp)"
  log "kube-build: etcd built in $((SECONDS - start))s"
fi
done_
