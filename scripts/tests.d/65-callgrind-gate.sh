#!/usr/bin/env bash
# CopierGen never makes a program slower, as instruction counts that machine
# load cannot change: zlib (minigzip -6 / -d), lz4 (-1 / -d) and protobuf-c
# (pack / unpack) built with plain clang-22 and with copiergen cc, counted
# under callgrind on fixed inputs; fails when copiergen / plain is above 1.02
# for any figure (bench/programs/callgrind-gate.sh has the method and why
# it runs with COPIER_OPTIONS=spawn=0).
# Budget: about 5 minutes on 2 cores, most of it the four builds
# (protobuf-c's C++ code generator); the counting itself takes about 40 s.
# One program alone: bash bench/programs/callgrind-gate.sh zlib
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 65-callgrind-gate
start=$SECONDS
rc=0
bash bench/programs/callgrind-gate.sh || rc=$?
echo "65-callgrind-gate: $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $rc
