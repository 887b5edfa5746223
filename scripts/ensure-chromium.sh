#!/usr/bin/env bash
# Makes sure Debian's chromium is installed (/usr/bin/chromium): the dashboard tests drive it headless
# through playwright-core. Idempotent and quiet: prints nothing when chromium is already there, one
# line when it installs it, and apt's output only when the install fails. Needs root (CI runs as
# root); the browser comes from Debian's archive only, never from a download.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: chromium is missing; run this script as root (it uses apt-get)" >&2
  exit 1
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "ensure-chromium: installing chromium failed (output above)" >&2
  exit 1
fi
echo "ensure-chromium: installed $(chromium --version 2>/dev/null || echo chromium)"
