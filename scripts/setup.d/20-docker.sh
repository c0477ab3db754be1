#!/usr/bin/env bash
# smol-executor-docker: a Docker engine and the executor's image, so the Docker tests really run.
# Idempotent and fast when done (engine answering + image present: about a second).
#   1. Debian's docker.io and debootstrap (apt), unless dockerd is already installed;
#   2. the engine, started in the background if it is not answering (no iptables, no bridge: the
#      executor's containers have no network anyway); log in /var/log/smol-dockerd.log; its pid goes
#      to $SMOL_SERVICES_FILE, so that scripts/test stops it when the tests end;
#   3. the image, built without a registry: `smol executor docker build --from-rootfs` (debootstrap a
#      minimal Debian with python3, `docker import`; 1-3 minutes), only if missing.
# Without root (a developer's machine) it does what it can and says what is missing; the Docker tests
# then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

image=$(sed -n 's/^DEFAULT_IMAGE = "\(.*\)"$/\1/p' packages/executors/docker/src/smol_executor_docker/engine.py)
log=/var/log/smol-dockerd.log

engine_up() { docker info >/dev/null 2>&1; }

if engine_up && docker image inspect "$image" >/dev/null 2>&1; then
  echo "20-docker: engine up, $image present"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "20-docker: not root; start a Docker engine and run \`smol executor docker build\` yourself" >&2
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  echo "20-docker: installing docker.io and debootstrap from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! engine_up; then
  echo "20-docker: starting dockerd (log: $log)"
  setsid nohup dockerd --iptables=false --bridge=none >"$log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    engine_up && break
    sleep 0.5
  done
  if ! engine_up; then
    echo "20-docker: dockerd did not come up; last lines of $log:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  # scripts/test stops what its set-up started when the tests end (unless SMOL_KEEP_SERVICES=1)
  if [ -n "${SMOL_SERVICES_FILE:-}" ] && [ -s /var/run/docker.pid ]; then
    echo "dockerd $(cat /var/run/docker.pid)" >>"$SMOL_SERVICES_FILE"
  fi
fi

if ! docker image inspect "$image" >/dev/null 2>&1; then
  echo "20-docker: building $image from a debootstrap root file system"
  started=$(date +%s)
  hatch run plugin-docker:python -m smol_core.cli.smol executor docker build --from-rootfs --if-missing
  echo "20-docker: $image built in $(( $(date +%s) - started ))s"
fi
