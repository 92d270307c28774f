#!/bin/bash
# Build the pod images the Kubernetes node runs (there is no registry: everything is made here, from source and
# from pinned Debian packages). Prints one line per image name on stdout; logs go to stderr.
#
#   build.sh [--save DIR] [--force] [pause|httpd|probe ...]
#
#   chainreaction.local/pause:3.10  Kubernetes' pause (build/pause/linux/pause.c of k8s.io/kubernetes at
#                                   $KUBERNETES_VERSION), gcc -Os -static, stripped; FROM scratch, USER 65535.
#   chainreaction.local/httpd:1     static busybox (Debian busybox-static); `httpd -f -v -p 8080 -h /www` answers
#                                   "chainreaction-web\n" on port 8080; busybox applets (sh, wget, nc, ...).
#   chainreaction.local/probe:1     curl (Debian's, with exactly the shared libraries it loads) + busybox + the
#                                   Mozilla CA bundle; idles in `sleep` so that tests `kubectl exec` curl in it.
#
#   --save DIR   also write DIR/pod-images.tar, one `docker save` of the images built (for `ctr -n k8s.io images
#                import`); rewritten only when an image changed (DIR/pod-images.tar.ids holds their IDs).
#   --force      rebuild even when an image's input-hash label matches its inputs.
#
# Reproducible: no `docker build`. Each image is one layer tar written with fixed owners, modes, mtimes and order,
# plus a config with a fixed creation date, loaded with `docker load`; the same inputs give the same image ID on
# any machine. Inputs: debs.lock (package versions + SHA256; .debs cached in $CHAINREACTION_CACHE/debs), pause.c
# from the Go module cache, the host's gcc/libc6-dev (pause is linked statically), and this script.
# Idempotent: an image whose label dev.chainreaction.input-hash equals the hash of its inputs is not rebuilt.
#
# Environment: CHAINREACTION_STRICT_DEBS=1 fails when a pinned Debian version is no longer downloadable (Debian
# keeps only the latest point release); by default build.sh then warns and takes apt's candidate version.
. "$(dirname "$0")/../lib.sh"
umask 022

HERE=$INFRA_DIR/images
CACHE=$CHAINREACTION_CACHE/images
DEB_CACHE=$CHAINREACTION_CACHE/debs
LOCK_FILE=$HERE/debs.lock
RECIPE=1                          # bump when the way images are assembled changes beyond what the hash sees
SOURCE_DATE_EPOCH=0               # mtime of every file and creation date of every image ("56 years ago")
CREATED=1970-01-01T00:00:00Z
PATH_ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
declare -A IMAGE=(
  [pause]=chainreaction.local/pause:3.10
  [httpd]=chainreaction.local/httpd:1
  [probe]=chainreaction.local/probe:1
)
ALL=(pause httpd probe)
HTTPD_BODY=chainreaction-web      # what GET / answers, followed by a newline
HASH_LABEL=dev.chainreaction.input-hash

save_dir= force= wanted=()
while (( $# )); do
  case $1 in
    --save) save_dir=${2:?--save needs a directory}; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    pause|httpd|probe) wanted+=("$1"); shift ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
(( ${#wanted[@]} )) || wanted=("${ALL[@]}")

[[ -d /usr/local/go/bin ]] && PATH=$PATH:/usr/local/go/bin
for c in docker dpkg-deb apt-get readelf tar sha256sum flock; do
  command -v "$c" >/dev/null || die "$c is missing (this script expects a Debian host with Docker)"
done
docker info >/dev/null 2>&1 || "$INFRA_DIR/docker/ensure-docker.sh" >&2 || die "no Docker engine"

mkdir -p "$CACHE" "$DEB_CACHE"
exec 9>"$CHAINREACTION_CACHE/images.lock"
flock 9                                       # one build at a time on this machine
WORK=$(mktemp -d "$CACHE/work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SELF_SHA=$(sha256sum <"$0" | cut -d' ' -f1)

sha() { sha256sum | cut -d' ' -f1; }
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
json_arr() { local out= a; for a; do out+=${out:+,}$(json_str "$a"); done; printf '[%s]' "$out"; }

# --- Debian packages -------------------------------------------------------------------------------------
apt_updated=
apt_download() {  # apt_download "<pkg=version>..." <dir>: quietly; one `apt-get update` retry
  # shellcheck disable=SC2086 # $1 is a list of pkg=version words
  (cd "$2" && apt-get download -q $1 >/dev/null 2>"$WORK/apt.err") && return 0
  if [[ -z $apt_updated ]]; then
    apt_updated=1
    log "images: apt-get update (could not download $1)"
    apt-get update -q >/dev/null 2>&1 || log "images: apt-get update failed"
    # shellcheck disable=SC2086
    (cd "$2" && apt-get download -q $1 >/dev/null 2>"$WORK/apt.err") && return 0
  fi
  return 1
}

# prefetch_debs <package>...: download, in one apt-get call, the pinned versions missing from the cache (one call
# per package costs seconds each). Only an optimisation: fetch_deb checks and, if need be, fetches each again.
prefetch_debs() {
  local pkg ver want file specs=() dl f
  for pkg; do
    read -r ver want < <(awk -v p="$pkg" '!/^#/ && $2 == p {print $3, $4; exit}' "$LOCK_FILE")
    [[ -n ${ver:-} ]] || continue
    file=$DEB_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
    [[ -s $file ]] || specs+=("$pkg=$ver")
  done
  (( ${#specs[@]} )) || return 0
  log "images: downloading ${#specs[@]} Debian package(s)"
  dl=$(mktemp -d "$WORK/dl.XXXXXX")
  if apt_download "${specs[*]}" "$dl"; then
    for f in "$dl"/*.deb; do
      pkg=$(dpkg-deb -f "$f" Package) ver=$(dpkg-deb -f "$f" Version)
      mv "$f" "$DEB_CACHE/${pkg}_${ver//:/%3a}_amd64.deb"
    done
  fi
  rm -rf "$dl"
}

# fetch_deb <package>: sets DEB to the cached .deb of the version pinned in debs.lock (downloaded when missing,
# SHA256 checked) and DEB_ID to "<package>=<version> <sha256>".
fetch_deb() {
  local pkg=$1 ver want file got dl
  read -r ver want < <(awk -v p="$pkg" '!/^#/ && $2 == p {print $3, $4; exit}' "$LOCK_FILE")
  [[ -n ${ver:-} ]] || die "$pkg is not in $LOCK_FILE (run infra/images/lock-debs.sh)"
  file=$DEB_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
  if [[ ! -s $file ]] || [[ $(sha <"$file") != "$want" ]]; then
    dl=$(mktemp -d "$WORK/dl.XXXXXX")
    if apt_download "$pkg=$ver" "$dl"; then
      got=$(sha <"$dl"/*.deb)
      [[ $got == "$want" ]] || die "$pkg=$ver: SHA256 $got, but $LOCK_FILE pins $want"
      mv "$dl"/*.deb "$file.tmp" && mv "$file.tmp" "$file"
      log "images: downloaded $pkg=$ver"
    else
      [[ ${CHAINREACTION_STRICT_DEBS:-} == 1 ]] \
        && die "$pkg=$ver (pinned in $LOCK_FILE) cannot be downloaded: $(tail -n1 "$WORK/apt.err")"
      ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2; exit}')
      [[ -n $ver && $ver != '(none)' ]] || die "$pkg: pinned version gone and apt has no candidate"
      log "images: WARNING: $pkg: the pinned version is no longer downloadable; using $ver" \
        "(re-pin with infra/images/lock-debs.sh)"
      file=$DEB_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
      if [[ ! -s $file ]]; then
        apt_download "$pkg=$ver" "$dl" || die "$pkg=$ver cannot be downloaded: $(tail -n1 "$WORK/apt.err")"
        mv "$dl"/*.deb "$file.tmp" && mv "$file.tmp" "$file"
      fi
      want=$(sha <"$file")
    fi
    rm -rf "$dl"
  fi
  DEB=$file
  DEB_ID="$pkg=$ver $want"
}

# --- image assembly --------------------------------------------------------------------------------------
# Everything an image gets but its files: the config fragment (without rootfs/history), built by the recipes.
# load_image <key> <rootfs> <hash> <config-fields-json>: tar the rootfs deterministically, write a docker-archive
# (manifest.json + config + layer) and `docker load` it under IMAGE[key].
load_image() {
  local key=$1 root=$2 hash=$3 fields=$4 name=${IMAGE[$1]} arc diff cfg cfg_sha old
  arc=$WORK/$key.archive
  mkdir -p "$arc"
  (cd "$root" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort >"$WORK/$key.list")
  tar -C "$root" --format=gnu --no-recursion --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -cf "$arc/layer.tar" -T "$WORK/$key.list"
  diff=$(sha <"$arc/layer.tar")
  mkdir "$arc/$diff" && mv "$arc/layer.tar" "$arc/$diff/layer.tar"
  cfg=$(printf '{"architecture":"amd64","os":"linux","created":"%s","config":{%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"%s","created_by":"infra/images/build.sh %s"}]}' \
    "$CREATED" "$fields" "$diff" "$CREATED" "$key")
  cfg_sha=$(printf '%s' "$cfg" | sha)
  printf '%s' "$cfg" >"$arc/$cfg_sha.json"
  printf '[{"Config":"%s.json","RepoTags":[%s],"Layers":["%s/layer.tar"]}]' "$cfg_sha" "$(json_str "$name")" "$diff" \
    >"$arc/manifest.json"
  old=$(docker image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)
  tar -C "$arc" -cf - manifest.json "$cfg_sha.json" "$diff" | docker load -q >/dev/null \
    || die "docker load of $name failed"
  [[ $(docker image inspect --format '{{.Id}}' "$name") == "sha256:$cfg_sha" ]] || die "$name: unexpected image ID"
  # The image this one replaced, if now untagged and unused.
  if [[ -n $old && $old != "sha256:$cfg_sha" ]] \
    && [[ $(docker image inspect --format '{{len .RepoTags}}' "$old" 2>/dev/null) == 0 ]]; then
    docker image rm "$old" >/dev/null 2>&1 || true
  fi
  log "images: built $name (sha256:${cfg_sha:0:12}, $(du -k --apparent-size "$arc/$diff/layer.tar" | cut -f1) KiB)"
}

# No dev.chainreaction.managed label: containers inherit image labels, and the harness reaps managed containers
# that have no live owner.
labels_json() {  # labels_json <hash> <k=v>...: the Labels object
  local out kv
  out="$(json_str "$HASH_LABEL"):$(json_str "$1")"
  shift
  for kv in "$@"; do out+=",$(json_str "${kv%%=*}"):$(json_str "${kv#*=}")"; done
  printf '{%s}' "$out"
}

up_to_date() {  # up_to_date <key> <hash>
  [[ -z $force ]] || return 1
  [[ $(docker image inspect --format "{{index .Config.Labels \"$HASH_LABEL\"}}" "${IMAGE[$1]}" 2>/dev/null) == "$2" ]]
}

# Busybox + its applets as symlinks into an usr-merged tree (/bin -> usr/bin, /sbin -> usr/sbin), minimal /etc.
busybox_tree() {  # busybox_tree <busybox.deb> <root>
  local root=$2 x=$WORK/busybox-x a
  rm -rf "$x" && dpkg-deb -x "$1" "$x"
  mkdir -p "$root"/usr/bin "$root"/usr/sbin "$root"/etc "$root"/tmp "$root"/root
  ln -s usr/bin "$root/bin"; ln -s usr/sbin "$root/sbin"
  install -m 0755 "$x/bin/busybox" "$root/usr/bin/busybox"
  for a in $("$root/usr/bin/busybox" --list-full); do
    case $a in
      */busybox|*/*/*/*) continue ;;
      bin/*|usr/bin/*) a=usr/bin/${a##*/} ;;
      sbin/*|usr/sbin/*) a=usr/sbin/${a##*/} ;;
      *) continue ;;          # linuxrc
    esac
    [[ -e $root/$a || -L $root/$a ]] || ln -s /usr/bin/busybox "$root/$a"
  done
  chmod 1777 "$root/tmp"; chmod 0700 "$root/root"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
    >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
}

# PID 1 ignores SIGTERM unless it handles it: wrap the long-running command so that pods stop at once.
sh_pid1() { json_arr /bin/sh -c "trap 'exit 0' TERM INT; $1 & wait"; }

# --- pause -----------------------------------------------------------------------------------------------
build_pause() {
  local dir src tag ver toolchain hash root
  command -v go >/dev/null || die "go is missing (needed to fetch k8s.io/kubernetes@$KUBERNETES_VERSION)"
  command -v gcc >/dev/null || die "gcc is missing: apt-get install -y gcc libc6-dev"
  dir=$(cd / && GOWORK=off GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  src=$dir/build/pause/linux/pause.c
  [[ -n $dir && -f $src ]] || die "go mod download k8s.io/kubernetes@$KUBERNETES_VERSION gave no $src"
  tag=$(sed -n 's/^TAG ?= *//p' "$dir/build/pause/Makefile")
  ver=v${tag:-3.10.1}-$KUBERNETES_VERSION      # upstream: v$(TAG)-$(git describe)
  toolchain="gcc $(gcc -dumpfullversion) $(ld --version | head -n1) libc6-dev $(dpkg-query -W -f='${Version}' \
    libc6-dev 2>/dev/null || ldd --version | head -n1)"
  hash=$(printf '%s\n' "recipe $RECIPE" "script $SELF_SHA" "pause.c $(sha <"$src")" "version $ver" "$toolchain" | sha)
  if up_to_date pause "$hash"; then log "images: ${IMAGE[pause]} is up to date"; return; fi
  root=$WORK/pause.root
  mkdir -p "$root"
  gcc -Os -Wall -Werror -static "-DVERSION=$ver" -o "$root/pause" "$src" || die "compiling $src failed"
  strip "$root/pause"
  chmod 0755 "$root/pause"
  [[ $("$root/pause" -v) == "pause.c $ver" ]] || die "the compiled pause does not report $ver"
  load_image pause "$root" "$hash" \
    "\"User\":\"65535:65535\",\"Env\":$(json_arr "$PATH_ENV"),\"Entrypoint\":$(json_arr /pause),\"WorkingDir\":\"/\",\"Labels\":$(labels_json "$hash" \
      "dev.chainreaction.kubernetes-version=$KUBERNETES_VERSION" "dev.chainreaction.pause-version=$ver")"
}

# --- httpd -----------------------------------------------------------------------------------------------
build_httpd() {
  local hash root
  fetch_deb busybox-static; local bb=$DEB bb_id=$DEB_ID
  hash=$(printf '%s\n' "recipe $RECIPE" "script $SELF_SHA" "$bb_id" | sha)
  if up_to_date httpd "$hash"; then log "images: ${IMAGE[httpd]} is up to date"; return; fi
  root=$WORK/httpd.root
  busybox_tree "$bb" "$root"
  mkdir -p "$root/www"
  printf '%s\n' "$HTTPD_BODY" >"$root/www/index.html"
  load_image httpd "$root" "$hash" \
    "\"Env\":$(json_arr "$PATH_ENV"),\"Cmd\":$(sh_pid1 'httpd -f -v -p 8080 -h /www'),\"WorkingDir\":\"/\",\"ExposedPorts\":{\"8080/tcp\":{}},\"Labels\":$(labels_json "$hash" \
      "dev.chainreaction.busybox=${bb_id%% *}" "dev.chainreaction.body=$HTTPD_BODY")"
}

# --- probe -----------------------------------------------------------------------------------------------
# copy_libs <staging> <root> <elf>...: copy into <root>/usr/lib/x86_64-linux-gnu every shared library the ELF
# files need (transitively, by DT_NEEDED, looked up in the staging tree's multiarch dirs), under its soname.
copy_libs() {
  local st=$1 root=$2 lib=usr/lib/x86_64-linux-gnu queue=() seen=" " f so d found
  shift 2
  mkdir -p "$root/$lib"
  queue=("$@")
  while (( ${#queue[@]} )); do
    f=${queue[0]}; queue=("${queue[@]:1}")
    for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
      [[ $seen == *" $so "* ]] && continue
      seen+="$so "
      found=
      for d in "$st/lib/x86_64-linux-gnu" "$st/usr/lib/x86_64-linux-gnu"; do
        [[ -e $d/$so ]] && { found=$(readlink -f "$d/$so"); break; }
      done
      [[ -n $found ]] || die "probe: no $so (needed by ${f#"$st"/}) in the packages of debs.lock"
      install -m 0644 "$found" "$root/$lib/$so"
      queue+=("$found")
    done
  done
}

build_probe() {
  local hash root st ids=() p pkgs interp
  mapfile -t pkgs < <(awk '!/^#/ && $1 == "curl" {print $2}' "$LOCK_FILE")
  prefetch_debs busybox-static ca-certificates "${pkgs[@]}"
  fetch_deb busybox-static; local bb=$DEB; ids+=("$DEB_ID")
  fetch_deb ca-certificates; local ca=$DEB; ids+=("$DEB_ID")
  local debs=()
  for p in "${pkgs[@]}"; do fetch_deb "$p"; debs+=("$DEB"); ids+=("$DEB_ID"); done
  hash=$(printf '%s\n' "recipe $RECIPE" "script $SELF_SHA" "${ids[@]}" | sha)
  if up_to_date probe "$hash"; then log "images: ${IMAGE[probe]} is up to date"; return; fi
  st=$WORK/probe.staging root=$WORK/probe.root
  mkdir -p "$st"
  for p in "${debs[@]}"; do dpkg-deb -x "$p" "$st"; done
  busybox_tree "$bb" "$root"
  install -m 0755 "$st/usr/bin/curl" "$root/usr/bin/curl"
  # glibc dlopens libgcc_s for thread cancellation/unwinding; it is not a DT_NEEDED of anything here.
  copy_libs "$st" "$root" "$st/usr/bin/curl" "$st/lib/x86_64-linux-gnu/libgcc_s.so.1"
  install -m 0644 "$(readlink -f "$st/lib/x86_64-linux-gnu/libgcc_s.so.1")" \
    "$root/usr/lib/x86_64-linux-gnu/libgcc_s.so.1"
  interp=$(readelf -l "$st/usr/bin/curl" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
  [[ $interp == /lib64/ld-linux-x86-64.so.2 ]] || die "probe: curl wants interpreter '$interp'"
  install -m 0755 "$(readlink -f "$st$interp")" "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  mkdir -p "$root/usr/lib64"
  ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/usr/lib64/ld-linux-x86-64.so.2"
  ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
  # CA bundle as update-ca-certificates would make it from the Mozilla certificates.
  rm -rf "$WORK/ca-x" && dpkg-deb -x "$ca" "$WORK/ca-x"
  mkdir -p "$root/etc/ssl/certs"
  find "$WORK/ca-x/usr/share/ca-certificates/mozilla" -name '*.crt' | LC_ALL=C sort \
    | while read -r c; do cat "$c"; [[ $(tail -c1 "$c") == '' ]] || echo; done >"$root/etc/ssl/certs/ca-certificates.crt"
  chroot "$root" /usr/bin/curl --version >/dev/null 2>"$WORK/curl.err" \
    || die "probe: curl does not run in its rootfs: $(cat "$WORK/curl.err")"
  load_image probe "$root" "$hash" \
    "\"Env\":$(json_arr "$PATH_ENV"),\"Cmd\":$(sh_pid1 'sleep 2147483647'),\"WorkingDir\":\"/\",\"Labels\":$(labels_json "$hash" \
      "dev.chainreaction.curl=$(awk '!/^#/ && $2 == "curl" {print $3}' "$LOCK_FILE")")"
}

# --- main ------------------------------------------------------------------------------------------------
for key in "${wanted[@]}"; do "build_$key"; done
if [[ -n $save_dir ]]; then
  mkdir -p "$save_dir"
  names=() ids=
  for key in "${wanted[@]}"; do names+=("${IMAGE[$key]}"); ids+="${IMAGE[$key]} $(docker image inspect --format '{{.Id}}' "${IMAGE[$key]}")"$'\n'; done
  if [[ -s $save_dir/pod-images.tar && $(cat "$save_dir/pod-images.tar.ids" 2>/dev/null)$'\n' == "$ids" ]]; then
    log "images: $save_dir/pod-images.tar is up to date"
  else
    docker save -o "$save_dir/pod-images.tar.tmp" "${names[@]}" && mv "$save_dir/pod-images.tar.tmp" "$save_dir/pod-images.tar"
    printf '%s' "$ids" >"$save_dir/pod-images.tar.ids"
    log "images: saved ${names[*]} to $save_dir/pod-images.tar"
  fi
fi
for key in "${wanted[@]}"; do echo "${IMAGE[$key]}"; done
