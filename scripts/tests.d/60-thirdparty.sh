#!/usr/bin/env bash
# Third-party code built with copiergen cc, running its own test suite
# (testsuite/thirdparty/run.sh; RESULTS.md there has the full matrix):
#   zlib (make test), protobuf-c (make check), Redis (runtest on
#   unit/type/{string,list,hash,set} and unit/dump) with the pass's defaults;
#   zlib under --sanitize (CopierSanitizer build, zero reports required);
#   zlib and libyaml under --threshold1 (nearly every copy async: the
#   strongest correctness check); brotli and jansson (Debian's build flags).
# Budget: 12 minutes on 2 cores (the first three ~4 min, the rest ~8 min);
# the stage prints its time. A fresh machine also downloads the sources
# (apt-get source, a few MB each) once.
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 60-thirdparty
start=$SECONDS
runs=(
  "zlib" "protobuf-c" "redis"
  "zlib --sanitize"
  "zlib --threshold1" "libyaml --threshold1"
  "brotli" "jansson"
)
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086 # package and options
  bash testsuite/thirdparty/run.sh $r
done
echo "60-thirdparty: ${#runs[@]} runs passed in $((SECONDS - start)) s"
