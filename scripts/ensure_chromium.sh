#!/usr/bin/env bash
# Installs Debian's `chromium` for the HTML viewer's browser tests (tests/viewers) when it
# is missing: they drive the system's browser with Playwright and never download one.
# It needs root and apt-get; elsewhere it says plainly what it skipped, and the browser
# tests are skipped with the reason. Under CI (CI set) a browser it cannot install is an
# error, as it is for those tests.
set -euo pipefail

if [ -n "${BOTARENA_CHROMIUM:-}" ] && [ -x "${BOTARENA_CHROMIUM}" ]; then
  exit 0  # the tests' own choice of browser
fi
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
packages=(chromium fonts-liberation fonts-dejavu-core)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests of the HTML viewer (apt-get)..."
  export DEBIAN_FRONTEND=noninteractive
  install() { apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; }
  # The package lists may be missing or old on a fresh machine: update them only then.
  if install 2>/dev/null || { apt-get update -qq && install; }; then
    echo "Installed $(chromium --version 2>/dev/null || echo chromium)."
    exit 0
  fi
  echo "apt-get could not install chromium." >&2
else
  echo "chromium is not installed, and this user cannot install it (needs root and apt-get)."
fi
if [ -n "${CI:-}" ]; then
  echo "CI runs the browser tests (tests/viewers): chromium is required." >&2
  exit 1
fi
echo "Skipping: the HTML viewer's browser tests (tests/viewers) will be skipped." \
  "Install the browser with: sudo apt-get install chromium"
