#!/usr/bin/env bash
# smol-transport-redis: Debian's redis-server, which the transport's tests start on a free port of
# 127.0.0.1 for each test session (and stop after), and the openssl command, which makes the
# certificate of the server the TLS tests start. Idempotent: does nothing when both are there.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then
  echo "50-redis: $(redis-server --version | cut -d' ' -f1-3) already installed"
  exit 0
fi
echo "50-redis: installing redis-server and openssl from Debian"
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server openssl >/dev/null
# the tests start their own server; the system one the package may have enabled is not needed
if command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
echo "50-redis: $(redis-server --version | cut -d' ' -f1-3) installed"
