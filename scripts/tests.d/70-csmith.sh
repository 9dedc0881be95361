#!/usr/bin/env bash
# Differential testing: 40 csmith programs (fixed seeds, reproducible) built
# with and without CopierGen at -O0 and -O2 with every copy rewritten must
# print the same checksums. Budget: 3 minutes (measured 81 s). Longer runs: testsuite/csmith/run.sh N SEED.
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 70-csmith
bash testsuite/csmith/run.sh 40 1000
