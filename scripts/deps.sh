#!/usr/bin/env bash
# Installs the Debian packages that a scripts/dev command needs and that are missing, nothing else.
# Uses sudo when not root. Quick when everything is already there (one dpkg-query per package).
#
#   scripts/deps.sh GROUP...    groups: build, test, check, bench, cluster (see below)
set -euo pipefail

declare -A group
# Building and running lbsim (standalone Asio: lbsim serve's sockets and timers).
group[build]="cmake ninja-build make g++ pkg-config ccache
  libboost-program-options-dev libeigen3-dev nlohmann-json3-dev libfmt-dev zlib1g-dev libasio-dev"
# The test suite: GoogleTest; Debian's python3 with the DataStax Python driver (the ring
# cross-check, tests/python_driver_test.cpp) and PyYAML (the Kubernetes manifests' test);
# Chromium (renders the HTML report in its test); Java with the HdrHistogram library (the reference
# decoder of the .hlog export in tests/hlog_test.cpp); npm (the Node.js driver oracle, below); Go
# with gocql 1.3.2 (a real driver against lbsim serve, tests/serve_drivers_test.cpp, built offline
# in GOPATH mode from Debian's Go source packages).
group[test]="libgtest-dev libgmock-dev python3 python3-cassandra python3-yaml chromium
  openjdk-17-jdk-headless libhdrhistogram-java npm golang-go golang-github-gocql-gocql-dev"
# The sweeps on a one-node Slurm and through GNU parallel (tests/cluster/).
group[cluster]="slurm-wlm munge parallel"
# The sanitizer and fuzz build (clang: ASan, UBSan, libFuzzer); it also compiles the benchmarks.
group[check]="clang libclang-rt-14-dev libbenchmark-dev"
group[bench]="libbenchmark-dev"

packages=()
for g in "$@"; do
  if [ -z "${group[$g]+set}" ]; then
    echo "deps: unknown group '$g' (allowed: build, test, cluster, check, bench)" >&2
    exit 2
  fi
  read -r -a ps <<<"$(echo ${group[$g]})"
  packages+=("${ps[@]}")
done
if [ "${LBSIM_EXTRA_PACKAGES:-}" != "" ]; then
  read -r -a extra <<<"$LBSIM_EXTRA_PACKAGES"
  packages+=("${extra[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # npm may come with Node.js from elsewhere (a node install that brings its own npm).
    if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
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

# The test group: the Node.js driver that tests/policy_nodejs_test.cpp runs as an oracle, pinned, in
# a cache outside the repository; one file test when it is already there.
for g in "$@"; do
  [ "$g" = test ] || continue
  npm_cache="${XDG_CACHE_HOME:-$HOME/.cache}/lbsim/npm"
  if ! grep -qs '"version": "4.10.0"' "$npm_cache/node_modules/cassandra-driver/package.json"; then
    echo "deps: installing cassandra-driver@4.10.0 (npm) into $npm_cache" >&2
    mkdir -p "$npm_cache"
    npm install --no-audit --no-fund --prefix "$npm_cache" cassandra-driver@4.10.0 >&2
  fi
done
