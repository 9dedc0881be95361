#!/usr/bin/env bash
# Copier's whole test suite: installs what it needs, builds, then runs every
# stage in scripts/tests.d/ in name order. Stops at the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
# Disk: the suite's peak is ~2.5 GiB in the checkout (target/ ~2.1 GiB, ~1 GiB of it
# stage 35-mlir's static MLIR front end, one
# third-party tree, the failing cases' files; passing cases' binaries and trees
# are removed as it goes) plus temporaries. A full disk shows up late and
# obliquely (a link that fails without the linker's message), so say it first.
avail_mib=$(df -Pk . | awk 'NR == 2 { print int($4 / 1024) }')
echo "test.sh: ${avail_mib} MiB free on the checkout's file system" >&2
if [ "$avail_mib" -lt 3072 ]; then
  echo "test.sh: WARNING: less than 3 GiB free; the suite needs about 2.5 GiB and may fail for lack of disk" >&2
fi
cargo build --release --locked
for stage in scripts/tests.d/*.sh; do
  echo "=== test stage: $(basename "$stage")" >&2
  start=$(date +%s)
  if ! bash "$stage"; then
    echo "=== FAILED: $(basename "$stage") after $(( $(date +%s) - start ))s ($(df -Pk . | awk 'NR == 2 { print int($4 / 1024) }') MiB free on the checkout's file system)" >&2
    exit 1
  fi
  echo "=== passed: $(basename "$stage") in $(( $(date +%s) - start ))s" >&2
done
echo "all test stages passed" >&2
