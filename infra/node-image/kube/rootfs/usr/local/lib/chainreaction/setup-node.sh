#!/bin/sh
# Build-time set-up of the Kubernetes layer (docker build RUN). Works on the default node OS and on a user's own
# base image: checks what the base must provide, enables the node's units, masks what must not run in a node
# container.
set -eu
fail() { echo "node image: the base image lacks $1" >&2; exit 1; }
[ -x /sbin/init ] || [ -x /usr/lib/systemd/systemd ] || [ -x /lib/systemd/systemd ] || fail "systemd (/sbin/init)"
for c in systemctl journalctl containerd ctr runc iptables iptables-save iptables-restore ip6tables ip mount bash; do
  command -v "$c" >/dev/null 2>&1 || fail "$c"
done
[ -x /sbin/init ] || ln -s /usr/lib/systemd/systemd /sbin/init
# CNI plugins: Debian installs them in /usr/lib/cni, most others in /opt/cni/bin.
if [ ! -x /usr/lib/cni/bridge ]; then
  if [ -x /opt/cni/bin/bridge ]; then
    sed -i 's#bin_dir = "/usr/lib/cni"#bin_dir = "/opt/cni/bin"#' /etc/containerd/config.toml
  else
    fail "the CNI plugins bridge, host-local, portmap, loopback (/usr/lib/cni or /opt/cni/bin)"
  fi
fi
if ! systemctl cat iptables.service >/dev/null 2>&1 && \
   [ ! -e /usr/lib/systemd/system/iptables.service ] && [ ! -e /lib/systemd/system/iptables.service ] && \
   [ ! -e /etc/systemd/system/iptables.service ]; then
  echo "node image: WARNING: the base image has no iptables.service; 'systemctl restart iptables' will fail" >&2
fi
# (No chmod of the binaries here: it would copy ~600 MB into another layer. build.sh sets modes in the context.)

systemctl set-default multi-user.target
systemctl enable containerd.service chainreaction-pki.service chainreaction-images.service \
  chainreaction-rbac.service etcd.service \
  kube-apiserver.service kube-controller-manager.service kube-scheduler.service kubelet.service kube-proxy.service

sh /usr/local/lib/chainreaction/mask-units.sh

# Each node generates its own machine-id at start (entrypoint).
: >/etc/machine-id
mkdir -p /var/lib/chainreaction /var/lib/etcd /var/lib/kubelet /etc/kubernetes/pki
chmod 0700 /var/lib/etcd
