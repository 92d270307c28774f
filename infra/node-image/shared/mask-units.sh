#!/bin/sh
# Masks what must not run in a node container (used by both the OS and the Kubernetes layer at build time):
# consoles and logins, udev (no devices to manage), kernel modules (nomodule), and everything that writes the
# VM's global kernel settings: systemd-sysctl (alias procps.service) would apply /usr/lib/sysctl.d
# (fs.protected_*, kernel.pid_max, ...) to the whole VM -- seen happen here --; binfmt_misc is global too.
set -eu
systemctl mask \
  getty.target console-getty.service getty@tty1.service serial-getty@console.service \
  systemd-logind.service systemd-firstboot.service \
  systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
  systemd-udev-trigger.service systemd-udev-settle.service systemd-hwdb-update.service \
  systemd-sysctl.service systemd-modules-load.service kmod-static-nodes.service \
  systemd-binfmt.service proc-sys-fs-binfmt_misc.automount proc-sys-fs-binfmt_misc.mount \
  sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount sys-fs-fuse-connections.mount \
  dev-hugepages.mount systemd-remount-fs.service systemd-pstore.service systemd-journald-audit.socket \
  systemd-random-seed.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
  fstrim.timer procps.service hwclock.service 2>&1 | grep -v '^Created symlink' || true

