#!/usr/bin/env bash
# Compiles and runs RngContention (the shared-Random vs ThreadLocalRandom calibration of lbsim's
# client model). Usage: scripts/calibrate/run.sh [BUILD_DIR] [--quick]
# BUILD_DIR defaults to build/calibrate under the repository root; the JSON goes to stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/calibrate"
if [[ $# -gt 0 && "$1" != -* ]]; then  # an option such as --quick is passed on, not a folder
    out="$1"
    shift
fi

src="$here/RngContention.java"
cls="$out/RngContention.class"
mkdir -p "$out"
if [[ ! -f "$cls" || "$src" -nt "$cls" ]]; then
    javac -d "$out" "$src"
fi
exec java -cp "$out" RngContention "$@"
