# Source me (". infra/docker/testcontainers-env.sh"): exports the Testcontainers settings this machine needs.
# - TESTCONTAINERS_RYUK_DISABLED=true only when no testcontainers/ryuk image is present locally: there is no
#   registry to pull it from (the harness then removes its own containers).
# - TESTCONTAINERS_HOST_OVERRIDE=localhost only when /.dockerenv exists and DOCKER_HOST is unset or a unix
#   socket: /.dockerenv makes Testcontainers believe it runs inside a container and try to pull an image to
#   find the gateway.
# Values the user already set are kept. Prints one line to stderr saying what it set. No strict mode here: it
# runs in the caller's shell.
__cr_tc_set=()
if [[ -z ${TESTCONTAINERS_RYUK_DISABLED:-} ]]; then
  if [[ -z $(docker image ls -q testcontainers/ryuk 2>/dev/null) ]]; then
    export TESTCONTAINERS_RYUK_DISABLED=true
    __cr_tc_set+=("TESTCONTAINERS_RYUK_DISABLED=true (no local testcontainers/ryuk image)")
  fi
fi
if [[ -z ${TESTCONTAINERS_HOST_OVERRIDE:-} && -e /.dockerenv ]]; then
  if [[ -z ${DOCKER_HOST:-} || ${DOCKER_HOST} == unix://* ]]; then
    export TESTCONTAINERS_HOST_OVERRIDE=localhost
    __cr_tc_set+=("TESTCONTAINERS_HOST_OVERRIDE=localhost (/.dockerenv present, local socket)")
  fi
fi
if (( ${#__cr_tc_set[@]} )); then
  __cr_tc_line=$(IFS=';'; printf '%s' "${__cr_tc_set[*]}")
  printf 'testcontainers-env: set %s\n' "${__cr_tc_line//;/, }" >&2
else
  printf 'testcontainers-env: nothing to set (kept TESTCONTAINERS_RYUK_DISABLED=%s TESTCONTAINERS_HOST_OVERRIDE=%s)\n' \
    "${TESTCONTAINERS_RYUK_DISABLED:-unset}" "${TESTCONTAINERS_HOST_OVERRIDE:-unset}" >&2
fi
unset __cr_tc_set __cr_tc_line
