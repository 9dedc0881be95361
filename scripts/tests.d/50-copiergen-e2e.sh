#!/usr/bin/env bash
# copiergen end to end: C, C++, Rust and example programs built with and
# without the pass print the same output and their large copies go
# asynchronous (testsuite/e2e/run.sh). Budget: 1 minute (measured 7 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 50-copiergen-e2e
bash testsuite/e2e/run.sh
