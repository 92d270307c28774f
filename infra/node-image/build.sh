#!/bin/bash
# Build the node image: a single-node Kubernetes cluster in one container, systemd as PID 1, whose
# `systemctl restart iptables` is Azure Linux 3.0's iptables.service. Idempotent: every layer is tagged by a hash
# of its inputs and rebuilt only when they change (a no-op run reads no binary: their hashes are cached by
# inode, size and mtime). Prints the node image tag as its only stdout line.
#
#   build.sh [--base-image IMAGE] [--node-scripts DIR] [--kube-bin DIR] [--etcd-bin DIR] [--pod-images "IMG..."]
#
#   --base-image IMAGE   your own node OS image (local; must have systemd, containerd, runc, iptables and, for the
#                        incident, an iptables.service). Default: a Debian $DEBIAN_SUITE rootfs with an Azure Linux
#                        3.0 style iptables.service (chainreaction.local/node-os:<hash>).
#   --node-scripts DIR   your own node scripts (e.g. iptables_save); installed to /usr/local/sbin, replacing the
#                        defaults in infra/node-image/node-scripts.
#   --kube-bin DIR       kubelet, kube-proxy, kube-apiserver, kube-controller-manager, kube-scheduler, kubeadm,
#                        kubectl. Default: $KUBE_BIN, else infra/kube-build's output (built if missing).
#   --etcd-bin DIR       etcd (and etcdctl). Default: $ETCD_BIN, else infra/kube-build's output.
#   --pod-images "..."   images to preload into the node's containerd. Default: what infra/images/build.sh prints.
#   --os-only            build only the default OS image (no Kubernetes) and print its tag.
#
# Layers (tags):
#   chainreaction.local/node-rootfs:<h>  debootstrap --variant=minbase of the package list (tarball cached under
#                                        $CHAINREACTION_CACHE/node-image/rootfs-<h>.tar)
#   chainreaction.local/node-os:<h>      + os/ (Azure Linux 3.0 iptables.service, nft alternatives)
#   chainreaction.local/node:<h>         + kube/ (binaries, units, configs, pod image tarballs)
. "$(dirname "$0")/../lib.sh"

HERE=$INFRA_DIR/node-image
CACHE=$CHAINREACTION_CACHE/node-image
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Packages of the default node OS. Lean: what systemd, containerd, the CNI plugins, kubelet, kube-proxy and the
# harness' checks (iptables nft+legacy, conntrack, ip, curl, socat for port-forward) need.
PACKAGES=(systemd systemd-sysv dbus containerd runc containernetworking-plugins iptables conntrack iproute2
  curl ca-certificates procps socat util-linux mount)
ROOTFS_RECIPE=1   # bump when debootstrap_rootfs changes in a way the package list does not show

base_image=
node_scripts=$HERE/node-scripts
kube_bin=${KUBE_BIN:-}
etcd_bin=${ETCD_BIN:-}
pod_images=${CHAINREACTION_POD_IMAGES:-}
pod_images_set=${CHAINREACTION_POD_IMAGES+x}
os_only=
while (( $# )); do
  case $1 in
    --base-image) base_image=${2:?--base-image needs an image}; shift 2 ;;
    --node-scripts) node_scripts=${2:?--node-scripts needs a directory}; shift 2 ;;
    --kube-bin) kube_bin=${2:?--kube-bin needs a directory}; shift 2 ;;
    --etcd-bin) etcd_bin=${2:?--etcd-bin needs a directory}; shift 2 ;;
    --pod-images) pod_images=$2; pod_images_set=x; shift 2 ;;
    --os-only) os_only=1; shift ;;
    -h|--help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

export DOCKER_BUILDKIT=0   # the classic builder resolves FROM against local images only; no registry here
sha() { sha256sum | cut -c1-16; }
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }
image_id() { docker image inspect --format '{{.Id}}' "$1"; }
# docker build, quiet: only errors reach stderr (not the client's "legacy builder is deprecated" notice).
docker_build() {
  local out
  if ! out=$(docker build -q "$@" 2>&1); then
    printf '%s\n' "$out" | grep -vE 'DEPRECATED: The legacy builder|BuildKit is currently disabled|environment-variable\.$' >&2
    return 1
  fi
}
# Content hash of a directory tree: paths, modes, symlink targets and bytes (few processes: this runs on every
# no-op build).
tree_hash() {
  (cd "$1" && {
    find . \( -type f -o -type l \) ! -name '*.md' -printf '%p %m %l\n' | LC_ALL=C sort
    find . -type f ! -name '*.md' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  }) | sha
}
# "<sha256> <name>" for each file, from a cache keyed by device, inode, size and mtime: a no-op build must not
# re-read the ~650 MB of Kubernetes binaries (5 s here).
HASH_CACHE=$CACHE/sha256.cache
file_shas() {
  local -A known=()
  local sum key line
  if [[ -r $HASH_CACHE ]]; then
    while read -r sum key; do known[$key]=$sum; done <"$HASH_CACHE"
  fi
  while IFS= read -r line; do
    key=${line%%|*}
    local f=${line#*|}
    sum=${known[$key]:-}
    if [[ -z $sum ]]; then
      sum=$(sha256sum <"$f" | cut -d' ' -f1)
      mkdir -p "$CACHE" && printf '%s %s\n' "$sum" "$key" >>"$HASH_CACHE"
    fi
    echo "$sum $(basename "$f")"
  done < <(stat -L -c '%d:%i:%s:%.9Y:%n|%n' "$@")
}

# Building needs an engine, not privileged containers: skip the (slower) full check when one answers.
if ! docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  "$INFRA_DIR/docker/ensure-docker.sh" >&2
fi

# --- (a) base rootfs -------------------------------------------------------------------------------------
debootstrap_rootfs() {
  local tarball=$1 dir
  command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install -y debootstrap"
  [[ $(id -u) == 0 ]] || die "debootstrap needs root"
  dir=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  local incl; incl=$(IFS=,; echo "${PACKAGES[*]}")
  log "node-image: debootstrap --variant=minbase $DEBIAN_SUITE ($incl); takes a few minutes"
  nice debootstrap --variant=minbase --include="$incl" "$DEBIAN_SUITE" "$dir" "$MIRROR" \
    >"$CACHE/debootstrap.log" 2>&1 || { tail -n 30 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
  # Lean image: no apt lists, caches, docs, man pages or locales; an empty machine-id so each node gets its own.
  chroot "$dir" apt-get clean
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/log/* "$dir"/tmp/* \
    "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
    "$dir"/var/cache/debconf/*-old "$dir"/var/lib/dpkg/*-old
  : >"$dir/etc/machine-id"
  rm -f "$dir/var/lib/dbus/machine-id" "$dir/etc/hostname"
  tar --numeric-owner -C "$dir" -cf "$tarball.tmp" .
  mv -f "$tarball.tmp" "$tarball"
  rm -rf "$dir"
}

os_image() {
  local pkg_hash rootfs_tag tarball os_hash os_tag
  pkg_hash=$(printf '%s\n' "$DEBIAN_SUITE" "$MIRROR" "$ROOTFS_RECIPE" "${PACKAGES[@]}" | LC_ALL=C sort | sha)
  rootfs_tag=chainreaction.local/node-rootfs:$pkg_hash
  local rootfs_id; rootfs_id=$(image_id "$rootfs_tag" 2>/dev/null || true)
  if [[ -z $rootfs_id ]]; then
    mkdir -p "$CACHE"
    tarball=$CACHE/rootfs-$DEBIAN_SUITE-$pkg_hash.tar
    [[ -s $tarball ]] || debootstrap_rootfs "$tarball"
    log "node-image: importing $tarball as $rootfs_tag"
    docker import -c 'ENTRYPOINT ["/sbin/init"]' -c 'ENV container=docker' "$tarball" "$rootfs_tag" >/dev/null
    rootfs_id=$(image_id "$rootfs_tag")
  fi
  os_hash=$( { echo "$rootfs_id"; tree_hash "$HERE/os"; tree_hash "$HERE/shared"; } | sha)
  os_tag=chainreaction.local/node-os:$os_hash
  if ! image_exists "$os_tag"; then
    log "node-image: building $os_tag (Azure Linux 3.0 iptables.service on $rootfs_tag)"
    local ctx; ctx=$(mktemp -d "${TMPDIR:-/tmp}/chainreaction-os-ctx.XXXXXX")
    cp -a "$HERE/os/." "$ctx/"; cp -a "$HERE/shared" "$ctx/shared"
    docker_build --build-arg "BASE_IMAGE=$rootfs_tag" --label dev.chainreaction.managed=true \
      -t "$os_tag" "$ctx" || { rm -rf "$ctx"; die "docker build of $os_tag failed"; }
    rm -rf "$ctx"
  fi
  echo "$os_tag"
}

[[ -n $base_image ]] || base_image=$(os_image)
base_id=$(image_id "$base_image" 2>/dev/null) \
  || die "base image $base_image is not present locally (there is no registry here: docker load or build it first)"
if [[ -n $os_only ]]; then echo "$base_image"; exit 0; fi

# --- (c) Kubernetes layer inputs -------------------------------------------------------------------------
KUBE_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubeadm kubectl)
ETCD_BINARIES=(etcd)
default_kube_bin=$CHAINREACTION_CACHE/kube/$KUBERNETES_VERSION/bin
default_etcd_bin=$CHAINREACTION_CACHE/etcd/$ETCD_VERSION/bin
have_all() { local d=$1; shift; local b; for b; do [[ -x $d/$b ]] || return 1; done; }
if [[ -z $kube_bin ]] && have_all "$default_kube_bin" "${KUBE_BINARIES[@]}"; then kube_bin=$default_kube_bin; fi
if [[ -z $etcd_bin ]] && have_all "$default_etcd_bin" "${ETCD_BINARIES[@]}"; then etcd_bin=$default_etcd_bin; fi
if [[ -z $kube_bin || -z $etcd_bin ]]; then
  kb=$INFRA_DIR/kube-build/build.sh
  [[ -x $kb ]] || die "Kubernetes binaries missing ($default_kube_bin, $default_etcd_bin) and $kb does not exist yet; pass --kube-bin/--etcd-bin"
  log "node-image: building Kubernetes $KUBERNETES_VERSION and etcd $ETCD_VERSION with $kb (slow on a cold Go cache)"
  out=$("$kb") || die "$kb failed"
  [[ -n $kube_bin ]] || kube_bin=$(sed -n 's/^KUBE_BIN=//p' <<<"$out" | tail -n 1)
  [[ -n $etcd_bin ]] || etcd_bin=$(sed -n 's/^ETCD_BIN=//p' <<<"$out" | tail -n 1)
fi
have_all "$kube_bin" "${KUBE_BINARIES[@]}" || die "$kube_bin lacks one of: ${KUBE_BINARIES[*]}"
have_all "$etcd_bin" "${ETCD_BINARIES[@]}" || die "$etcd_bin lacks: ${ETCD_BINARIES[*]}"
[[ -d $node_scripts ]] || die "--node-scripts $node_scripts is not a directory"

# Pod images preloaded into the node's containerd (there is no registry for kubelet to pull from). The sandbox
# image chainreaction.local/pause:3.10 must be among them.
if [[ -z $pod_images_set ]]; then
  ib=$INFRA_DIR/images/build.sh
  if [[ -x $ib ]]; then
    pod_images=$("$ib" | grep -E '^[a-z0-9.-]+(/[A-Za-z0-9._-]+)+:[A-Za-z0-9._-]+$' || true)
    [[ -n $pod_images ]] || die "$ib printed no image names"
  else
    # Hook: until infra/images/build.sh exists, take whatever chainreaction.local pod images are present.
    pod_images=$(docker image ls --format '{{.Repository}}:{{.Tag}}' 'chainreaction.local/*' \
      | grep -vE '^chainreaction\.local/(node|node-os|node-rootfs|busybox):' || true)
    log "node-image: $ib does not exist yet; preloading the local images: ${pod_images:-none}"
  fi
fi
read -r -a pod_images <<<"$(echo $pod_images)"
# One `docker image inspect` for all of them (each docker CLI call costs ~0.1 s; this runs on every no-op build).
pod_image_ids=()
if (( ${#pod_images[@]} )); then
  mapfile -t pod_image_ids < <(docker image inspect --format '{{.Id}}' "${pod_images[@]}" 2>/dev/null || true)
  if (( ${#pod_image_ids[@]} != ${#pod_images[@]} )); then
    for img in "${pod_images[@]}"; do image_exists "$img" || die "pod image $img is not present locally"; done
  fi
fi
printf '%s\n' "${pod_images[@]}" | grep -qx 'chainreaction.local/pause:3.10' \
  || log "node-image: WARNING: chainreaction.local/pause:3.10 is not among the pod images; pods will not start"

# --- tag from every input --------------------------------------------------------------------------------
node_hash=$( {
  echo "base $base_id"
  echo "kube $KUBERNETES_VERSION etcd $ETCD_VERSION"
  file_shas "${KUBE_BINARIES[@]/#/$kube_bin/}" "${ETCD_BINARIES[@]/#/$etcd_bin/}"
  [[ ! -x $etcd_bin/etcdctl ]] || file_shas "$etcd_bin/etcdctl"
  echo "recipe $(sha <"$HERE/build.sh")"
  echo "kube-layer $(tree_hash "$HERE/kube") $(tree_hash "$HERE/shared")"
  echo "node-scripts $(tree_hash "$node_scripts")"
  for i in "${!pod_images[@]}"; do echo "pod-image ${pod_images[i]} ${pod_image_ids[i]}"; done
} | sha)
node_tag=chainreaction.local/node:$node_hash
if image_exists "$node_tag"; then
  log "node-image: $node_tag is up to date"
  echo "$node_tag"
  exit 0
fi

ctx=$(mktemp -d "${TMPDIR:-/tmp}/chainreaction-node-ctx.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
cp -a "$HERE/kube/." "$ctx/"
cp -a "$HERE/shared" "$ctx/shared"
mkdir -p "$ctx/bin" "$ctx/node-scripts" "$ctx/images"
# Hard links where possible (same file system, already mode 0755): copying ~650 MB took 3-4 s of a rebuild.
stage_bin() { { [[ $(stat -c %a "$1") == 755 ]] && ln "$1" "$ctx/bin/" 2>/dev/null; } || cp "$1" "$ctx/bin/"; }
for b in "${KUBE_BINARIES[@]}"; do stage_bin "$kube_bin/$b"; done
for b in "${ETCD_BINARIES[@]}" etcdctl; do [[ ! -x $etcd_bin/$b ]] || stage_bin "$etcd_bin/$b"; done
cp -a "$node_scripts/." "$ctx/node-scripts/"
chmod 0755 "$ctx"/bin/* "$ctx"/shared/* "$ctx"/rootfs/usr/local/lib/chainreaction/*
find "$ctx/node-scripts" -type f -exec chmod 0755 {} +
if (( ${#pod_images[@]} )); then
  log "node-image: saving pod images: ${pod_images[*]}"
  docker save "${pod_images[@]}" -o "$ctx/images/pod-images.tar"
fi
log "node-image: building $node_tag on $base_image"
docker_build --build-arg "BASE_IMAGE=$base_image" \
  --label dev.chainreaction.managed=true \
  --label "dev.chainreaction.kubernetes-version=$KUBERNETES_VERSION" \
  --label "dev.chainreaction.etcd-version=$ETCD_VERSION" \
  --label "dev.chainreaction.base-image=$base_image" \
  -t "$node_tag" "$ctx" || die "docker build of $node_tag failed (context: $HERE/kube)"
echo "$node_tag"
