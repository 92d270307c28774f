# Shared helpers for the infra scripts. Source it: . "$(dirname "$0")/../lib.sh"
set -euo pipefail
INFRA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
. "$INFRA_DIR/versions.env"
# Caches live outside git, keyed by pinned versions, and survive between runs on one machine.
CHAINREACTION_CACHE=${CHAINREACTION_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chainreaction}
export CHAINREACTION_CACHE
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
