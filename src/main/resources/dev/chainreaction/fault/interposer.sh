#!/bin/sh
# chainreaction's iptables interposer. Installed first in kubelet's PATH as iptables/ip6tables: records every call
# kubelet makes (start, end, exit status, argv) and, when a call matches the armed step, runs the fault
# synchronously BEFORE letting the call through, so the fault lands exactly between two of kubelet's steps.
dir=${CHAINREACTION_RUN:-/run/chainreaction}
tool=${0##*/}
self_dir=${0%/*}
# The real tool: the first one on PATH that is not us.
real=
IFS=:
for p in $PATH; do
  [ "$p" = "$self_dir" ] && continue
  if [ -x "$p/$tool" ]; then real=$p/$tool; break; fi
done
unset IFS
[ -n "$real" ] || { echo "interposer: no real $tool on PATH" >&2; exit 127; }
mkdir -p "$dir"
now() { date +%s.%N; }
start=$(now)
if [ -f "$dir/arm" ] && [ "$tool" = "$(sed -n 1p "$dir/arm")" ]; then
  want=$(sed -n 2p "$dir/arm")
  case " $* " in
    *" $want "*)
      # One shot: disarm first, so the fault's own iptables calls (and kubelet's retries) pass straight through.
      mv "$dir/arm" "$dir/arm.fired"
      printf '%s FAULT-START %s\n' "$(now)" "$want" >> "$dir/interposer.log"
      sh "$dir/fault.sh" > "$dir/fault.out" 2>&1
      printf '%s FAULT-END %s\n' "$(now)" "$?" >> "$dir/interposer.log"
      ;;
  esac
fi
"$real" "$@"
rc=$?
printf '%s CALL %s %s %s %s\n' "$start" "$(now)" "$rc" "$tool" "$*" >> "$dir/interposer.log"
exit $rc
