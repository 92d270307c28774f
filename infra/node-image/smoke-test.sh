#!/bin/bash
# Start one node from the node image the way the harness does, check it end to end, measure it, remove it.
# For validating a node image by hand (yours too: build it with --base-image/--node-scripts first).
#
#   smoke-test.sh [IMAGE]        default: the image infra/node-image/build.sh prints
#
# Checks, in order (the first failure stops it, after printing the failed units and the kubelet log's tail):
#   - systemd reaches `running` (not `degraded`);
#   - /etc/kubernetes/admin.conf is written, and its credentials work through the published port on the VM's
#     loopback, as https://localhost:<port> and https://127.0.0.1:<port> (so the certificate's SANs are right);
#   - the API server is healthy (/readyz), the node is Ready, the default ServiceAccount exists;
#   - kubelet logged "Initialized iptables rules."; Azure NPM's detection commands (iptables-nft -w 60 -L
#     KUBE-IPTABLES-HINT / KUBE-KUBELET-CANARY -t mangle -n) exit 0; the tools the harness calls are there;
#     journald keeps the journal in memory (/run/log/journal);
#   - kubelet's kernel tunables are shadowed in the node (the node sees what kubelet wants; writing them fails);
#   - an httpd Deployment (imagePullPolicy: Never) answers through a NodePort Service from the VM and from the
#     node, and through its ClusterIP from a probe pod; a Service without endpoints is refused at once (curl
#     exit 7) from the node and from the pod;
#   - `systemctl restart iptables` deletes every chain and restores ip4save; kube-proxy (sync period 30 s) and
#     kubelet (Monitor, 1 min) bring their chains back; the NodePort and the REJECT work again;
#   - after `docker rm -f -v`: the VM's kernel.*, vm.*, fs.* (and global net.*) settings are what they were
#     before the node started, and neither the container nor its /var volume is left.
# Prints the measurements as its last stdout line.
#
# Environment: READY_TIMEOUT (s, default 300), SMOKE_KEEP=1 (leave the node running for a look; remove it
# yourself with docker rm -f -v <name>).
. "$(dirname "$0")/../lib.sh"

image=${1:-}
[[ -n $image ]] || image=$("$INFRA_DIR/node-image/build.sh")
"$INFRA_DIR/docker/ensure-docker.sh" >&2   # privileged containers need the runc wrapper here
name=chainreaction-smoke-$$
READY_TIMEOUT=${READY_TIMEOUT:-300}
KUBELET_RESYNC=65      # kubelet's Monitor: first canary check 1 min after start, then every minute, + 5 s settle
KUBE_PROXY_RESYNC=30   # kube-proxy.yaml iptables.syncPeriod
MARGIN=15

snapshot() {   # the VM's kernel settings, minus counters that move by themselves and per-interface entries
  sysctl -a 2>/dev/null | grep -E '^(kernel|vm|fs|net)\.' \
    | grep -vE '^(fs\.(dentry-state|file-nr|inode-nr|inode-state|aio-nr|quota\.)|kernel\.(ns_last_pid|random\.|pty\.nr)|net\.netfilter\.nf_conntrack_count)' \
    | awk -F. '!($1 == "net" && ($3 == "conf" || $3 == "neigh") && $4 != "all" && $4 != "default")' || true
}
# Harness containers carry an owner label; a harness starting meanwhile reaps managed containers whose owner is
# gone (ManagedContainers.reapLeftovers), so say who owns this one: this shell's pid and start time (ms).
owner_id() {
  local ticks btime hz
  ticks=$(awk '{print $22}' "/proc/$$/stat")
  btime=$(awk '/^btime/ {print $2}' /proc/stat)
  hz=$(getconf CLK_TCK)
  echo "$$@$(( btime * 1000 + ticks * 1000 / hz ))"
}
volume=
cleanup() {
  [[ -z ${SMOKE_KEEP:-} ]] || { log "smoke: SMOKE_KEEP set: leaving $name running (docker rm -f -v $name)"; return; }
  if docker container inspect "$name" >/dev/null 2>&1; then
    docker rm -f -v "$name" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
inode() { docker exec "$name" "$@"; }
fail() {
  inode systemctl --failed --no-pager >&2 2>/dev/null || true
  inode journalctl -u kubelet --no-pager -n 20 >&2 2>/dev/null || true
  die "smoke: $*"
}
pass() { log "smoke: ok: $*"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# wait_for <what> <timeout s> <command...>: poll every 0.5 s.
wait_for() {
  local what=$1 timeout=$2; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < deadline )) || fail "timed out after ${timeout}s waiting for $what"
    docker container inspect -f '{{.State.Running}}' "$name" 2>/dev/null | grep -qx true \
      || die "smoke: node container exited while waiting for $what: $(docker logs --tail 20 "$name" 2>&1)"
    sleep 0.5
  done
}

before=$(snapshot)
start=$(date +%s.%N)
# The flags the harness uses; infra/node-image/README.md gives the reason for each.
docker run -d --name "$name" --hostname "$name" \
  --privileged --cgroupns=private \
  --tmpfs /run --tmpfs /tmp --volume /var \
  --publish 127.0.0.1::6443 \
  --label dev.chainreaction.managed=true --label "dev.chainreaction.owner=$(owner_id)" \
  --label dev.chainreaction.role=smoke-test \
  "$image" >/dev/null
ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$name")
volume=$(docker inspect -f '{{range .Mounts}}{{if eq .Destination "/var"}}{{.Name}}{{end}}{{end}}' "$name")
api_port=$(docker port "$name" 6443/tcp | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | head -n 1)
[[ -n $api_port ]] || fail "6443 is not published on 127.0.0.1"
log "smoke: started $name ($ip, API on 127.0.0.1:$api_port) from $image"

# --- boot --------------------------------------------------------------------------------------------------
# (Polled: right after the start systemctl cannot reach PID 1 yet, and --wait would give up at once.)
deadline=$((SECONDS + 180))
while :; do
  state=$(docker exec "$name" systemctl is-system-running 2>/dev/null || true)
  [[ $state == initializing || $state == starting || -z $state || $state == offline ]] || break
  (( SECONDS < deadline )) || break
  sleep 0.2
done
[[ $state == running ]] || fail "systemd is '${state:-unknown}', not 'running'"
systemd_s=$(elapsed "$start")
pass "systemd running after ${systemd_s}s"

wait_for "/etc/kubernetes/admin.conf" 120 inode test -s /etc/kubernetes/admin.conf
creds=$(mktemp -d)
trap 'rm -rf "$creds"; cleanup' EXIT
inode cat /etc/kubernetes/admin.conf >"$creds/admin.conf"
for field in certificate-authority-data:ca.crt client-certificate-data:client.crt client-key-data:client.key; do
  sed -n "s/^ *${field%%:*}: *//p" "$creds/admin.conf" | head -n 1 | base64 -d >"$creds/${field#*:}"
  [[ -s $creds/${field#*:} ]] || fail "admin.conf has no ${field%%:*}"
done
api() {   # api <host> <path>: GET through the published port with admin.conf's credentials, verifying the SANs
  curl -sS --fail --max-time 5 --cacert "$creds/ca.crt" --cert "$creds/client.crt" --key "$creds/client.key" \
    "https://$1:$api_port$2"
}
wait_for "the API server's /readyz on https://localhost:$api_port" 180 api localhost /readyz
api_s=$(elapsed "$start")
api 127.0.0.1 /readyz >/dev/null || fail "https://127.0.0.1:$api_port/readyz failed (SAN 127.0.0.1?)"
grep -q "server: https://$ip:6443" "$creds/admin.conf" || fail "admin.conf's server is not https://$ip:6443"
pass "admin.conf works through 127.0.0.1:$api_port as localhost and 127.0.0.1; API healthy after ${api_s}s"

node_ready() {
  api localhost "/api/v1/nodes/$name" \
    | tr -d ' \n' | grep -q '"type":"Ready","status":"True"'
}
wait_for "node $name Ready" "$READY_TIMEOUT" node_ready
ready_s=$(elapsed "$start")
inode kubectl get nodes -o wide >&2
pass "node $name Ready after ${ready_s}s (container start to Ready)"
wait_for "the default ServiceAccount" 60 api localhost /api/v1/namespaces/default/serviceaccounts/default
pass "default ServiceAccount present"
# (grep -c, not -q: -q stops reading early, journalctl dies of SIGPIPE and pipefail fails the check.)

inode journalctl -u kubelet --no-pager | grep -c 'Initialized iptables rules.' >/dev/null \
  || fail "kubelet did not log 'Initialized iptables rules.'"
pass "kubelet: Initialized iptables rules."
inode iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n >/dev/null || fail "iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n failed"
inode iptables-nft -w 60 -L KUBE-KUBELET-CANARY -t mangle -n >/dev/null || fail "iptables-nft -w 60 -L KUBE-KUBELET-CANARY -t mangle -n failed"
pass "NPM's detection: iptables-nft -w 60 -L KUBE-IPTABLES-HINT -t mangle -n exits 0 (and the canary)"
missing=$(inode sh -c 'for t in sh bash curl iptables iptables-nft iptables-legacy iptables-nft-save \
    iptables-legacy-save iptables-save iptables-restore ip6tables ip6tables-nft ip6tables-legacy ip6tables-nft-save \
    ip6tables-legacy-save journalctl systemctl kubectl /usr/local/sbin/iptables_save; do
  command -v "$t" >/dev/null || printf "%s " "$t"; done')
[[ -z $missing ]] || fail "missing in the node: $missing"
inode sh -c 'test -d /run/log/journal && ! test -d /var/log/journal' \
  || fail "journald does not keep the journal in memory only (/run/log/journal; expected Storage=volatile)"
pass "the harness' tools are there; journal in memory"

# kubelet's setupKernelTunables: the node must read the values kubelet wants and the VM must keep its own.
shadowed=$(inode sh -c 'for k in vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops \
    kernel/keys/root_maxkeys kernel/keys/root_maxbytes; do printf "%s=%s " $k "$(cat /proc/sys/$k)"; done')
[[ $shadowed == 'vm/overcommit_memory=1 vm/panic_on_oom=0 kernel/panic=10 kernel/panic_on_oops=1 kernel/keys/root_maxkeys=1000000 kernel/keys/root_maxbytes=25000000 ' ]] \
  || fail "the node does not read what kubelet wants (the entrypoint's shadows are missing): $shadowed"
! inode sh -c 'echo 1 >/proc/sys/kernel/panic' 2>/dev/null || fail "/proc/sys/kernel/panic is writable in the node"
pass "kubelet's kernel tunables are read-only shadows in the node (VM: kernel.panic=$(cat /proc/sys/kernel/panic), vm.overcommit_memory=$(cat /proc/sys/vm/overcommit_memory))"

# --- workloads ---------------------------------------------------------------------------------------------
httpd=$(inode ctr -n k8s.io images ls -q | grep -E '^chainreaction\.local/[^:]*httpd[^:]*:' | head -n 1 || true)
probe=$(inode ctr -n k8s.io images ls -q | grep -E '^chainreaction\.local/probe:' | head -n 1 || true)
[[ -n $httpd && -n $probe ]] || fail "no chainreaction.local/httpd and probe images preloaded (got: ${httpd:-none}, ${probe:-none})"
port=$(docker image inspect -f '{{range $p, $_ := .Config.ExposedPorts}}{{$p}} {{end}}' "$httpd" 2>/dev/null \
  | grep -oE '^[0-9]+' || true)
port=${port:-8080}
docker exec -i "$name" kubectl apply -f - >/dev/null <<YAML || fail "kubectl apply of the smoke workloads failed"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: httpd, image: "$httpd", imagePullPolicy: Never, ports: [{containerPort: $port}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: $port}]
---
apiVersion: v1
kind: Service
metadata: {name: no-endpoints}
spec:
  selector: {app: nothing-has-this-label}
  ports: [{port: 80, targetPort: $port}]
---
apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - {name: probe, image: "$probe", imagePullPolicy: Never}
YAML
inode kubectl rollout status deployment/web --timeout=120s >&2 || fail "the httpd Deployment ($httpd) did not become ready"
inode kubectl wait --for=condition=Ready pod/probe --timeout=120s >/dev/null || fail "the probe pod ($probe) did not become ready"
nodeport=$(inode kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')
cluster_ip=$(inode kubectl get svc web -o jsonpath='{.spec.clusterIP}')
empty_ip=$(inode kubectl get svc no-endpoints -o jsonpath='{.spec.clusterIP}')

http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" || true; }
check_web() {   # <when>
  local code
  code=$(http_code "http://$ip:$nodeport/"); [[ $code == 200 ]] || fail "$1: NodePort $ip:$nodeport from the VM answered ${code:-nothing}"
  code=$(inode curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$nodeport/" || true)
  [[ $code == 200 ]] || fail "$1: NodePort 127.0.0.1:$nodeport in the node answered ${code:-nothing}"
  code=$(inode kubectl exec probe -- curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://$cluster_ip/" || true)
  [[ $code == 200 ]] || fail "$1: ClusterIP $cluster_ip:80 from the probe pod answered ${code:-nothing}"
  pass "$1: httpd answers 200 on NodePort $ip:$nodeport (VM, node) and ClusterIP $cluster_ip (probe pod)"
}
# curl's exit status and time when connecting to the Service without endpoints: 7 at once (REJECT).
check_refused() {   # <when>
  local out rc t
  out=$(inode sh -c "curl -s -o /dev/null -w '%{time_total}' --max-time 10 http://$empty_ip/; echo \" \$?\"")
  t=${out% *} rc=${out##* }
  [[ $rc == 7 ]] || fail "$1: curl to $empty_ip (no endpoints) from the node exited $rc after ${t}s, expected 7"
  awk -v t="$t" 'BEGIN { exit !(t < 2) }' || fail "$1: curl to $empty_ip was refused only after ${t}s"
  out=$(inode kubectl exec probe -- sh -c "curl -s -o /dev/null -w '%{time_total}' --max-time 10 http://$empty_ip/; echo \" \$?\"")
  t=${out% *} rc=${out##* }
  [[ $rc == 7 ]] || fail "$1: curl to $empty_ip (no endpoints) from the probe pod exited $rc after ${t}s, expected 7"
  awk -v t="$t" 'BEGIN { exit !(t < 2) }' || fail "$1: curl to $empty_ip from the pod was refused only after ${t}s"
  pass "$1: the Service without endpoints is refused at once (curl exit 7, ${t}s from the pod)"
}
check_web "before the restart"
check_refused "before the restart"

# --- systemctl restart iptables ----------------------------------------------------------------------------
inode iptables -N CHAINREACTION-SMOKE
inode systemctl restart iptables
t_restart=$(date +%s.%N)
inode systemctl is-active --quiet iptables || fail "iptables.service not active after restart"
! inode iptables -S CHAINREACTION-SMOKE >/dev/null 2>&1 || fail "restart did not delete a chain created before"
! inode iptables -t mangle -S KUBE-IPTABLES-HINT >/dev/null 2>&1 || fail "restart did not delete KUBE-IPTABLES-HINT"
! inode iptables -t nat -S KUBE-SERVICES >/dev/null 2>&1 || fail "restart did not delete nat KUBE-SERVICES"
[[ $(inode iptables -S INPUT | head -n 1) == '-P INPUT DROP' ]] || fail "ip4save's INPUT DROP policy not restored"
pass "systemctl restart iptables deleted every chain and restored ip4save"

kube_proxy_back() {
  inode iptables -t nat -S KUBE-SERVICES && inode iptables -t mangle -S KUBE-PROXY-CANARY \
    && inode sh -c 'iptables -t filter -S KUBE-SERVICES | grep -q "has no endpoints"'
}
kubelet_back() {
  inode iptables -t mangle -S KUBE-IPTABLES-HINT && inode iptables -t mangle -S KUBE-KUBELET-CANARY \
    && inode iptables -t filter -C OUTPUT -j KUBE-FIREWALL
}
kp_s= kl_s=
deadline=$((SECONDS + KUBELET_RESYNC + MARGIN))
until [[ -n $kp_s && -n $kl_s ]]; do
  (( SECONDS < deadline )) || break
  [[ -n $kp_s ]] || { kube_proxy_back >/dev/null 2>&1 && kp_s=$(elapsed "$t_restart"); }
  [[ -n $kl_s ]] || { kubelet_back >/dev/null 2>&1 && kl_s=$(elapsed "$t_restart"); }
  sleep 0.5
done
[[ -n $kp_s ]] || fail "kube-proxy did not recreate KUBE-SERVICES/KUBE-PROXY-CANARY/REJECT within $((KUBELET_RESYNC + MARGIN))s"
[[ -n $kl_s ]] || fail "kubelet did not recreate KUBE-IPTABLES-HINT/KUBE-KUBELET-CANARY/KUBE-FIREWALL within $((KUBELET_RESYNC + MARGIN))s"
awk -v t="$kp_s" -v m=$((KUBE_PROXY_RESYNC + MARGIN)) 'BEGIN { exit !(t <= m) }' \
  || fail "kube-proxy took ${kp_s}s (sync period ${KUBE_PROXY_RESYNC}s)"
pass "after the restart: kube-proxy's chains back after ${kp_s}s, kubelet's after ${kl_s}s"
check_web "after the restart"
check_refused "after the restart"

# --- measure, remove, compare ------------------------------------------------------------------------------
mem=$(docker stats --no-stream --format '{{.MemUsage}}' "$name" | sed 's| / .*||')
size=$(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0fMB", $1/1000/1000}')
[[ -z ${SMOKE_KEEP:-} ]] || { echo "image=$image size=$size ready_after=${ready_s}s memory=$mem"; exit 0; }
docker rm -f -v "$name" >/dev/null
sleep 1
after=$(snapshot)
if ! diff <(echo "$before") <(echo "$after") >&2; then
  die "smoke: the VM's kernel settings changed during the node's life (diff above)"
fi
pass "the VM's kernel.*, vm.*, fs.* and global net.* settings are unchanged ($(wc -l <<<"$before") compared)"
! docker container inspect "$name" >/dev/null 2>&1 || die "smoke: container $name left behind"
[[ -z $volume ]] || ! docker volume inspect "$volume" >/dev/null 2>&1 || die "smoke: volume $volume of $name left behind"
pass "nothing left behind (container and its /var volume removed)"
echo "image=$image size=$size systemd_running=${systemd_s}s api_healthy=${api_s}s ready_after=${ready_s}s memory=$mem kube_proxy_resync=${kp_s}s kubelet_resync=${kl_s}s"
