#!/usr/bin/env bash
# Third-party code built with copiergen cc, running its own test suite
# (testsuite/thirdparty/run.sh; RESULTS.md there has the full matrix):
#   zlib (make test), protobuf-c (make check), Redis (runtest on
#   unit/type/{string,list,hash,set} and unit/dump) with the pass's defaults;
#   zlib under --sanitize (CopierSanitizer build, zero reports required),
#   also with --threshold1 so the sanitizer sees many more pending copies;
#   zlib, libyaml and expat under --threshold1 (nearly every copy async: the
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
  "zlib --sanitize" "zlib --threshold1 --sanitize"
  "zlib --threshold1" "libyaml --threshold1" "expat --threshold1"
  "brotli" "jansson"
)
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086 # package and options
  bash testsuite/thirdparty/run.sh $r
done
# Wall time depends on what else the machine runs; CPU time (user, system of
# everything the stage started) does not.
# (`times` in this shell: in a subshell it would see no children.)
cpu=$(mktemp)
times >"$cpu"
echo "60-thirdparty: ${#runs[@]} runs passed in $((SECONDS - start)) s wall; CPU (user system): $(tail -1 "$cpu")"
rm -f "$cpu"
