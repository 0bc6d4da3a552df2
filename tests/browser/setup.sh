#!/usr/bin/env bash
# Install the headless browser of the explorer's browser test (tests/explore/test_explore_browser.py):
# Debian's chromium and chromium-driver, only if missing (run as root; `make test` calls it).
#
#   bash tests/browser/setup.sh     # idempotent: a second run only checks that both are there
#
# Selenium (requirements-dev.txt) drives this system Chromium through /usr/bin/chromedriver;
# nothing is downloaded at test time.
set -euo pipefail

pkgs=(chromium chromium-driver)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "[browser/setup.sh] packages present: ${pkgs[*]}"
  exit 0
fi
[[ $(id -u) == 0 ]] || { echo "[browser/setup.sh] ERROR: run as root to install ${missing[*]}" >&2; exit 1; }
echo "[browser/setup.sh] installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
  { tail -n 20 "$log" >&2; echo "[browser/setup.sh] ERROR: apt-get install failed" >&2; exit 1; }
rm -f "$log"
echo "[browser/setup.sh] installed: $(chromium --version 2>/dev/null || echo chromium)"
