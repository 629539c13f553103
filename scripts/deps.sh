#!/usr/bin/env bash
# Installs the Debian packages lbsim needs that are missing, and nothing else.
# Uses sudo when not root. Quick when everything is already there (one dpkg-query).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config ccache
  clang libclang-rt-14-dev    # the sanitizer + fuzz build (ASan, UBSan, libFuzzer)
  libboost-program-options-dev libeigen3-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-cassandra   # the ring oracle used by the cross-check test (../shared/oracle)
  python3-yaml                # parses the Kubernetes manifests in their test (scripts/k8s)
  chromium                    # renders the HTML report in its test (headless)
  openjdk-17-jdk-headless libhdrhistogram-java  # the reference decoder of the .hlog export in its test (tests/hlog_test.cpp)
)
if [ "${LBSIM_EXTRA_PACKAGES:-}" != "" ]; then
  read -r -a extra <<<"$LBSIM_EXTRA_PACKAGES"
  packages+=("${extra[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The Node.js driver the oracle test runs (tests/policy_nodejs_test.cpp, tests/nodejs/), pinned,
# in a cache outside the repository; one file test when it is already there.
npm_cache="${XDG_CACHE_HOME:-$HOME/.cache}/lbsim/npm"
if ! grep -qs '"version": "4.10.0"' "$npm_cache/node_modules/cassandra-driver/package.json"; then
  if command -v npm >/dev/null 2>&1; then
    echo "deps: installing cassandra-driver@4.10.0 (npm) into $npm_cache" >&2
    mkdir -p "$npm_cache"
    npm install --no-audit --no-fund --prefix "$npm_cache" cassandra-driver@4.10.0 >&2
  else
    echo "deps: npm not found; the Node.js driver oracle tests will be skipped" >&2
  fi
fi
