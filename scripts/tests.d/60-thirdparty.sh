#!/usr/bin/env bash
# Third-party code built with copiergen cc, running its own test suite:
# zlib (make test), protobuf-c (make check), Redis (runtest on unit/type/
# {string,list,hash,set} and unit/dump). Budget: 8 minutes on 2 cores.
# Redis runs in CI every time: measured at about 1 minute for build + those
# five units (see the lines printed below), well inside the 45-minute budget.
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
skip_stage_unless_ready 60-thirdparty
for pkg in zlib protobuf-c redis; do
  bash testsuite/thirdparty/run.sh "$pkg"
done
