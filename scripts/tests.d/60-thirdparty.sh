#!/usr/bin/env bash
# Third-party code built with copiergen cc, running its own test suite:
# zlib (make test), protobuf-c (make check), Redis (runtest on unit/type/
# {string,list,hash,set} and unit/dump). Budget: 5 minutes on 2 cores.
# Redis runs in CI every time: the whole stage measured 123 s on the 2-core
# machine (zlib 9 s, protobuf-c 40 s, Redis 32 s build + 34 s for the five
# units, plus the one-time apt-get source downloads), well inside the
# 45-minute CI budget.
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 60-thirdparty
for pkg in zlib protobuf-c redis; do
  bash testsuite/thirdparty/run.sh "$pkg"
done
