#!/bin/bash
# Re-pin the Debian packages the pod images are made of: writes infra/images/debs.lock from the versions apt
# offers now (run `apt-get update` first). build.sh downloads exactly these versions (and checks their SHA256).
#
#   lock-debs.sh [--check]    --check: only report whether the lock differs from what apt offers (exit 1 if so)
#
# Lock lines: <role> <package> <version> <sha256>. Roles: busybox (busybox-static, both busybox images),
# cacerts (ca-certificates: only its Mozilla .crt files are used, none of its dependencies), curl (curl and the
# closure of its Depends/Pre-Depends; the probe image takes curl plus the shared libraries it actually loads).
. "$(dirname "$0")/../lib.sh"

LOCK_FILE=$INFRA_DIR/images/debs.lock
check=
[[ ${1:-} == --check ]] && check=1

# The candidate version of a package and its SHA256, from the repository record (not dpkg's status).
pin() {
  local role=$1 pkg=$2 ver sha
  ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2; exit}')
  [[ -n $ver && $ver != '(none)' ]] || die "apt knows no candidate for $pkg (apt-get update?)"
  sha=$(apt-cache show "$pkg=$ver" | awk '/^SHA256:/ {print $2; exit}')
  [[ -n $sha ]] || die "no SHA256 for $pkg=$ver in apt's lists (apt-get update?)"
  printf '%s %s %s %s\n' "$role" "$pkg" "$ver" "$sha"
}

curl_closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances curl | grep -v '^[[:space:]<]' | LC_ALL=C sort -u
}

new=$( {
  echo "# Debian $DEBIAN_SUITE packages of infra/images (amd64). Written by lock-debs.sh; edit by re-running it."
  echo "# <role> <package> <version> <sha256>"
  pin busybox busybox-static
  pin cacerts ca-certificates
  for p in $(curl_closure); do pin curl "$p"; done
} )

if [[ -n $check ]]; then
  if [[ -f $LOCK_FILE ]] && diff <(grep -v '^#' "$LOCK_FILE") <(grep -v '^#' <<<"$new") >&2; then
    log "images: $LOCK_FILE matches what apt offers"; exit 0
  fi
  log "images: $LOCK_FILE differs from what apt offers (diff above)"; exit 1
fi
printf '%s\n' "$new" >"$LOCK_FILE"
log "images: wrote $LOCK_FILE ($(grep -vc '^#' "$LOCK_FILE") packages)"
