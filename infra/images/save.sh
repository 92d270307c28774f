#!/bin/bash
# Write DIR/pod-images.tar: one `docker save` of the pod images (built first when out of date), for loading into
# a node's containerd with `ctr -n k8s.io images import DIR/pod-images.tar`. Same as `build.sh --save DIR`.
#   save.sh DIR
exec "$(dirname "$0")/build.sh" --save "${1:?usage: save.sh DIR}"
