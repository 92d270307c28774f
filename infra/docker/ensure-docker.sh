#!/bin/bash
# Make sure a Docker engine runs here and can start --privileged containers. Idempotent: when everything is in
# place it only prints "docker: engine ready (<version>, runtime <name>)".
#
# What it may do, in order (each only when needed):
#   1. install Debian's docker.io (and jq) as root on Debian/Ubuntu;
#   2. start dockerd in the background, logging to /var/log/chainreaction-dockerd.log;
#   3. build a tiny local probe image (static busybox from Debian's busybox-static; there is no registry);
#   4. if `docker run --privileged` fails with "unable to apply caps" (the VM's bounding set lacks
#      CAP_SYS_RESOURCE), install infra/docker/runc-wrapper as a runc wrapper runtime, register it as dockerd's
#      default runtime in /etc/docker/daemon.json (merged with jq), reload/restart dockerd and check again.
# On success it touches /tmp/chainreaction-docker-ready.
#
# Environment: DOCKER_START_TIMEOUT (seconds, default 90).
. "$(dirname "$0")/../lib.sh"

RUNTIME_NAME=chainreaction-runc
WRAPPER_SRC=$INFRA_DIR/docker/runc-wrapper
WRAPPER_DST=/usr/local/libexec/chainreaction/runc-nosysresource
DAEMON_JSON=/etc/docker/daemon.json
DOCKERD_LOG=/var/log/chainreaction-dockerd.log
READY_FILE=/tmp/chainreaction-docker-ready
PROBE_IMAGE=chainreaction.local/busybox:probe
START_TIMEOUT=${DOCKER_START_TIMEOUT:-90}

is_root() { [[ $(id -u) == 0 ]]; }
is_debian_like() {
  [[ -r /etc/os-release ]] || return 1
  local id like
  id=$(. /etc/os-release && echo "${ID:-}")
  like=$(. /etc/os-release && echo "${ID_LIKE:-}")
  [[ " $id $like " == *" debian "* || " $id $like " == *" ubuntu "* ]]
}

# apt_install <what-for> <pkg>...: install Debian packages, or explain what the user must install.
apt_install() {
  local why=$1; shift
  if ! is_debian_like; then
    die "$why: install $* (this is not Debian/Ubuntu, so $(basename "$0") will not install it for you)"
  fi
  if ! is_root; then
    die "$why: run as root, or install it yourself: sudo apt-get install -y $*"
  fi
  log "docker: installing $* ($why)"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null \
      || die "$why: apt-get install -y $* failed"
  fi
}

engine_up() { docker info >/dev/null 2>&1; }

wait_for_engine() {
  local deadline=$((SECONDS + START_TIMEOUT))
  until engine_up; do
    if (( SECONDS >= deadline )); then
      tail -n 20 "$DOCKERD_LOG" >&2 2>/dev/null || true
      die "dockerd did not answer 'docker info' within ${START_TIMEOUT}s (log: $DOCKERD_LOG, tail above)"
    fi
    sleep 1
  done
}

start_dockerd() {
  log "docker: starting dockerd (log: $DOCKERD_LOG)"
  # setsid: dockerd must outlive this script and the shell that ran it.
  setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
  wait_for_engine
}

dockerd_pid() {
  local pid
  pid=$(cat /var/run/docker.pid 2>/dev/null || true)
  [[ -n $pid && -d /proc/$pid ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] && echo "$pid"
}

restart_dockerd() {
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet docker 2>/dev/null; then
    log "docker: restarting docker.service"
    systemctl restart docker
    wait_for_engine
    return
  fi
  local pid; pid=$(dockerd_pid) || die "cannot find dockerd's pid (/var/run/docker.pid); restart dockerd yourself"
  log "docker: restarting dockerd (pid $pid)"
  kill -TERM "$pid"
  local deadline=$((SECONDS + 60))
  while [[ -d /proc/$pid ]]; do
    (( SECONDS < deadline )) || die "dockerd (pid $pid) did not stop within 60s"
    sleep 1
  done
  start_dockerd
}

ensure_probe_image() {
  docker image inspect "$PROBE_IMAGE" >/dev/null 2>&1 && return 0
  local dir=$CHAINREACTION_CACHE/docker/busybox-static
  if [[ ! -x $dir/bin/busybox ]]; then
    log "docker: fetching Debian's busybox-static for the local probe image"
    mkdir -p "$dir/deb"
    (cd "$dir/deb" && apt-get download -q busybox-static >/dev/null 2>&1) \
      || { is_root && apt-get update -q >/dev/null 2>&1 && (cd "$dir/deb" && apt-get download -q busybox-static >/dev/null); } \
      || die "could not download Debian's busybox-static (apt-get download busybox-static)"
    local x; x=$(mktemp -d)
    dpkg-deb -x "$dir"/deb/busybox-static_*.deb "$x"
    mkdir -p "$dir/bin"
    install -m 0755 "$x/bin/busybox" "$dir/bin/busybox"
    rm -rf "$x" "$dir/deb"
  fi
  local root; root=$(mktemp -d)
  mkdir -p "$root/bin" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/etc"
  install -m 0755 "$dir/bin/busybox" "$root/bin/busybox"
  local applet
  for applet in $("$root/bin/busybox" --list); do
    [[ $applet == busybox ]] || ln -s busybox "$root/bin/$applet"
  done
  tar --owner=0 --group=0 -C "$root" -c . \
    | docker import -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - "$PROBE_IMAGE" >/dev/null \
    || { rm -rf "$root"; die "docker import of $PROBE_IMAGE failed"; }
  rm -rf "$root"
}

# Prints docker's error output when a privileged container cannot start.
privileged_error() {
  local out
  if out=$(docker run --rm --privileged --label dev.chainreaction.managed=true "$PROBE_IMAGE" true 2>&1); then
    return 1
  fi
  printf '%s\n' "$out"
}

install_wrapper() {
  command -v jq >/dev/null 2>&1 || apt_install "the runc wrapper edits OCI JSON with jq" jq
  if ! cmp -s "$WRAPPER_SRC" "$WRAPPER_DST" 2>/dev/null; then
    install -D -m 0755 "$WRAPPER_SRC" "$WRAPPER_DST"
  fi
}

register_wrapper() {
  mkdir -p "$(dirname "$DAEMON_JSON")"
  local current='{}'
  if [[ -s $DAEMON_JSON ]]; then
    jq -e 'type == "object"' "$DAEMON_JSON" >/dev/null 2>&1 || die "$DAEMON_JSON is not a JSON object; fix it first"
    current=$(cat "$DAEMON_JSON")
    [[ -e $DAEMON_JSON.chainreaction-orig ]] || cp -p "$DAEMON_JSON" "$DAEMON_JSON.chainreaction-orig"
  fi
  local merged
  merged=$(jq --arg n "$RUNTIME_NAME" --arg p "$WRAPPER_DST" \
    '.runtimes = ((.runtimes // {}) + {($n): {path: $p}}) | .["default-runtime"] = $n' <<<"$current")
  if [[ $merged != "$(jq . <<<"$current")" ]]; then
    printf '%s\n' "$merged" >"$DAEMON_JSON.tmp"
    mv -f "$DAEMON_JSON.tmp" "$DAEMON_JSON"
    return 0
  fi
  return 1
}

# --- 1+2: an engine ---------------------------------------------------------------------------------------
if ! command -v docker >/dev/null 2>&1; then
  apt_install "no docker client" docker.io
fi
if ! engine_up; then
  if ! command -v dockerd >/dev/null 2>&1; then
    apt_install "no Docker engine" docker.io
  fi
  if ! is_root; then
    die "no Docker engine answers (docker info failed); start it as root: sudo dockerd >/var/log/dockerd.log 2>&1 &  (or: sudo systemctl start docker)"
  fi
  if dockerd_pid >/dev/null; then
    log "docker: dockerd is running but not answering yet; waiting"
    wait_for_engine
  else
    start_dockerd
  fi
fi

# Keep an installed wrapper in step with the repo copy (it is exec'd afresh for every runc call), and put it
# back if daemon.json still names it but the file is gone.
if is_root && ! cmp -s "$WRAPPER_SRC" "$WRAPPER_DST" 2>/dev/null; then
  if [[ -e $WRAPPER_DST ]] || grep -qs "$WRAPPER_DST" "$DAEMON_JSON"; then
    install_wrapper
  fi
fi

# --- 3+4: privileged containers ---------------------------------------------------------------------------
ensure_probe_image
note=
if err=$(privileged_error); then
  if ! grep -q 'unable to apply caps' <<<"$err"; then
    die "docker run --privileged $PROBE_IMAGE failed: $err"
  fi
  is_root || die "privileged containers fail here (CAP_SYS_RESOURCE missing from the bounding set); as root, run $0 to install a runc wrapper runtime"
  install_wrapper
  if register_wrapper; then
    # dockerd reloads 'runtimes' and 'default-runtime' on SIGHUP, which keeps running containers alive.
    pid=$(dockerd_pid || true)
    if [[ -n $pid ]]; then
      kill -HUP "$pid"
      sleep 2
    fi
  fi
  if err=$(privileged_error); then
    restart_dockerd
    if err=$(privileged_error); then
      die "privileged containers still fail with runtime $RUNTIME_NAME ($WRAPPER_DST): $err"
    fi
  fi
  note="docker: privileged containers need a runc wrapper here (CAP_SYS_RESOURCE missing from the VM's bounding set); registered runtime $RUNTIME_NAME ($WRAPPER_DST) as default in $DAEMON_JSON"
fi

[[ -n $note ]] && echo "$note"
version=$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo unknown)
runtime=$(docker info --format '{{.DefaultRuntime}}' 2>/dev/null || echo unknown)
touch "$READY_FILE" 2>/dev/null || true
echo "docker: engine ready ($version, runtime $runtime)"
