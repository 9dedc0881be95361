#!/usr/bin/env bash
# Copier's whole test suite: installs what it needs, builds, then runs every
# stage in scripts/tests.d/ in name order. Stops at the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cargo build --release --locked
for stage in scripts/tests.d/*.sh; do
  echo "=== test stage: $(basename "$stage")" >&2
  start=$(date +%s)
  bash "$stage"
  echo "=== passed: $(basename "$stage") in $(( $(date +%s) - start ))s" >&2
done
echo "all test stages passed" >&2
