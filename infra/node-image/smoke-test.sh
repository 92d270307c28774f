#!/bin/bash
# Start one node from the node image the way the harness does, check it end to end, measure it, remove it.
# For validating a node image by hand (yours too: build it with --base-image/--node-scripts first).
#
#   smoke-test.sh [IMAGE]        default: the image infra/node-image/build.sh prints
#
# Checks: systemd reaches `running`; the node is Ready; kubelet logged "Initialized iptables rules."; Azure NPM's
# detection command finds KUBE-IPTABLES-HINT; an httpd pod answers through a NodePort from the host (when an
# httpd image is preloaded); `systemctl restart iptables` flushes everything and restores ip4save, and kubelet's
# Monitor and kube-proxy bring their chains back; the VM's kernel settings are unchanged afterwards; nothing of
# the node is left behind. Prints the measurements at the end.
. "$(dirname "$0")/../lib.sh"

image=${1:-}
[[ -n $image ]] || image=$("$INFRA_DIR/node-image/build.sh")
name=chainreaction-smoke-$$
READY_TIMEOUT=${READY_TIMEOUT:-300}

snapshot() {   # the VM's kernel settings, minus counters that move by themselves
  sysctl -a 2>/dev/null | grep -E '^(kernel|vm|fs|net)\.' \
    | grep -vE '^(fs\.(dentry-state|file-nr|inode-nr|inode-state|quota\.)|kernel\.(ns_last_pid|random\.)|net\.netfilter\.nf_conntrack_count)' || true
}
cleanup() {
  if docker container inspect "$name" >/dev/null 2>&1; then
    docker rm -f -v "$name" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
fail() { docker exec "$name" systemctl --failed --no-pager >&2 2>/dev/null || true; die "$*"; }
inode() { docker exec "$name" "$@"; }
pass() { log "smoke: ok: $*"; }

before=$(snapshot)
start=$(date +%s.%N)
# The flags the harness uses; infra/node-image/README.md gives the reason for each.
docker run -d --name "$name" --hostname "$name" \
  --privileged --cgroupns=private \
  --tmpfs /run --tmpfs /tmp --volume /var \
  --label dev.chainreaction.managed=true \
  "$image" >/dev/null
ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$name")
log "smoke: started $name ($ip) from $image"

state=$(timeout 180 docker exec "$name" systemctl is-system-running --wait 2>/dev/null || true)
[[ $state == running ]] || fail "systemd did not reach 'running' (state: ${state:-unknown})"
pass "systemd running"

deadline=$((SECONDS + READY_TIMEOUT))
until inode kubectl get nodes 2>/dev/null | grep -qw Ready; do
  (( SECONDS < deadline )) || fail "node not Ready within ${READY_TIMEOUT}s"
  sleep 1
done
ready_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
inode kubectl get nodes -o wide >&2
pass "node Ready after ${ready_s}s"

inode journalctl -u kubelet --no-pager | grep -q 'Initialized iptables rules.' \
  || fail "kubelet did not log 'Initialized iptables rules.'"
pass "kubelet: Initialized iptables rules."
inode iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n >/dev/null || fail "no KUBE-IPTABLES-HINT (nft)"
inode iptables-nft -w 60 -L KUBE-KUBELET-CANARY -t mangle -n >/dev/null || fail "no KUBE-KUBELET-CANARY (nft)"
pass "NPM's detection finds KUBE-IPTABLES-HINT and KUBE-KUBELET-CANARY through iptables-nft"

# An httpd pod behind a NodePort, reached from the VM through the node's IP.
httpd=$(inode ctr -n k8s.io images ls -q | grep -E '^chainreaction\.local/[^:]*httpd[^:]*:' | head -n 1 || true)
if [[ -n $httpd ]]; then
  port=$(docker image inspect -f '{{range $p, $_ := .Config.ExposedPorts}}{{$p}} {{end}}' "$httpd" 2>/dev/null \
    | grep -oE '^[0-9]+' || true)
  port=${port:-80}
  inode kubectl create deployment web --image="$httpd" --port="$port" >/dev/null
  inode kubectl patch deployment web --type=json -p \
    '[{"op":"replace","path":"/spec/template/spec/containers/0/imagePullPolicy","value":"Never"}]' >/dev/null
  inode kubectl expose deployment web --type=NodePort --port=80 --target-port="$port" >/dev/null
  inode kubectl rollout status deployment/web --timeout=120s >&2 || fail "httpd pod ($httpd) did not become ready"
  nodeport=$(inode kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://$ip:$nodeport/" || true)
  [[ $code == 200 ]] || fail "http://$ip:$nodeport/ (NodePort of $httpd) answered ${code:-nothing}"
  pass "httpd pod ($httpd) answers 200 on NodePort $ip:$nodeport"
else
  log "smoke: no chainreaction.local/*httpd* image preloaded: skipping the pod check"
fi

# systemctl restart iptables: everything flushed, ip4save restored, then kubelet and kube-proxy recover.
inode iptables -N CHAINREACTION-SMOKE
inode systemctl restart iptables
inode systemctl is-active --quiet iptables || fail "iptables.service not active after restart"
! inode iptables -S CHAINREACTION-SMOKE >/dev/null 2>&1 || fail "restart did not delete a chain created before"
! inode iptables -t mangle -S KUBE-IPTABLES-HINT >/dev/null 2>&1 || fail "restart did not flush mangle"
[[ $(inode iptables -S INPUT | head -n 1) == '-P INPUT DROP' ]] || fail "ip4save's INPUT DROP policy not restored"
pass "systemctl restart iptables flushed every table and restored ip4save"
t0=$SECONDS
until inode iptables -t mangle -S KUBE-IPTABLES-HINT >/dev/null 2>&1 \
   && inode iptables -t nat -S KUBE-SERVICES >/dev/null 2>&1; do
  (( SECONDS - t0 < 120 )) || fail "kubelet/kube-proxy did not recreate their chains within 120s"
  sleep 2
done
pass "kubelet recreated KUBE-IPTABLES-HINT and kube-proxy KUBE-SERVICES $((SECONDS - t0))s after the restart"
if [[ -n $httpd ]]; then
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://$ip:$nodeport/" || true)
  [[ $code == 200 ]] || fail "NodePort answered ${code:-nothing} after the restart and resync"
  pass "NodePort answers 200 again"
fi

mem=$(docker stats --no-stream --format '{{.MemUsage}}' "$name")
size=$(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1000/1000}')
docker rm -f -v "$name" >/dev/null
sleep 1
after=$(snapshot)
if ! diff <(echo "$before") <(echo "$after") >&2; then
  die "the VM's kernel settings changed during the node's life (diff above)"
fi
pass "the VM's kernel.*, vm.*, fs.*, net.* settings are unchanged"
if docker ps -a --filter "name=$name" -q | grep -q .; then die "container $name left behind"; fi
pass "nothing left behind"
echo "image=$image size=$size ready_after=${ready_s}s memory=\"$mem\""
