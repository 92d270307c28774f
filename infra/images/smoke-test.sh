#!/bin/bash
# Check the pod images with Docker (builds them first if needed): httpd answers "chainreaction-web" on :8080 and
# has busybox applets; the probe's curl runs and exits 7 (refused) and 28 (timed out) as the harness expects and
# writes `%{http_code} %{time_total}`; pause runs as 65535:65535 and exits 0 on SIGTERM. Publishes no host ports;
# removes every container it starts. Exit 0 and one "ok" line per check on success.
. "$(dirname "$0")/../lib.sh"

mapfile -t images < <("$INFRA_DIR/images/build.sh")
[[ ${images[*]} == "chainreaction.local/pause:3.10 chainreaction.local/httpd:1 chainreaction.local/probe:1" ]] \
  || die "build.sh printed: ${images[*]}"
PAUSE=${images[0]} HTTPD=${images[1]} PROBE=${images[2]}
tag=cr-images-smoke-$$
names=("$tag-web" "$tag-sink" "$tag-pause")
trap 'docker rm -f "${names[@]}" >/dev/null 2>&1 || true' EXIT
run_detached() { local n=$tag-$1; shift; docker run -d --name "$n" "$@" >/dev/null; echo "$n"; }
ok() { echo "ok: $*"; }

web=$(run_detached web "$HTTPD")
body=
for _ in $(seq 20); do body=$(docker exec "$web" busybox wget -qO- localhost:8080 2>/dev/null) && break; sleep 0.5; done
[[ $body == chainreaction-web ]] || die "httpd answered '$body'"
ok "httpd serves chainreaction-web on :8080 (docker exec busybox wget)"
docker exec "$web" sh -c 'command -v nc >/dev/null && command -v wget >/dev/null' || die "httpd lacks sh/nc/wget applets"
ok "httpd has sh, wget, nc"
ip=$(docker inspect -f '{{.NetworkSettings.IPAddress}}' "$web")

docker run --rm "$PROBE" curl --version | head -n 1 | grep -q '^curl ' || die "curl --version failed in $PROBE"
ok "probe: $(docker run --rm "$PROBE" curl --version | head -n 1 | cut -d' ' -f1-2)"
out=$(docker run --rm "$PROBE" curl -sS --max-time 2 -o /dev/stderr -w '%{http_code} %{time_total}' "http://$ip:8080/" 2>/dev/null) \
  || die "probe could not fetch http://$ip:8080/"
[[ $out =~ ^200\ [0-9.]+$ ]] || die "probe -w output: '$out'"
ok "probe -> httpd: '$out'"
set +e; docker run --rm "$PROBE" curl -sS --max-time 2 http://127.0.0.1:1/ 2>/dev/null; rc=$?; set -e
[[ $rc == 7 ]] || die "curl to 127.0.0.1:1 exited $rc, not 7"
ok "curl to a closed port exits 7"
sink=$(run_detached sink "$HTTPD" sh -c 'sleep 60 | nc -l -p 9000')   # accepts, never answers
sink_ip=$(docker inspect -f '{{.NetworkSettings.IPAddress}}' "$sink"); sleep 0.5
set +e; docker run --rm "$PROBE" curl -sS --max-time 1 "http://$sink_ip:9000/" 2>/dev/null; rc=$?; set -e
[[ $rc == 28 ]] || die "curl to a silent server exited $rc, not 28"
ok "curl to a silent server exits 28"

p=$(run_detached pause "$PAUSE")
sleep 0.5
pid=$(docker inspect -f '{{.State.Pid}}' "$p")
ids=$(awk '/^Uid:/ {u=$2} /^Gid:/ {g=$2} END {print u ":" g}' "/proc/$pid/status")
[[ $ids == 65535:65535 ]] || die "pause runs as uid:gid $ids"
docker stop -t 10 "$p" >/dev/null
[[ $(docker inspect -f '{{.State.ExitCode}}' "$p") == 0 ]] && docker logs "$p" 2>&1 | grep -q 'got signal' \
  || die "pause did not exit 0 on SIGTERM (exit $(docker inspect -f '{{.State.ExitCode}}' "$p"))"
ok "pause runs as 65535:65535 and exits 0 on SIGTERM ($(docker run --rm "$PAUSE" -v))"
