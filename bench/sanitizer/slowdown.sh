#!/usr/bin/env bash
# Slowdown of the CopierSanitizer build against the plain CopierGen build
# (same flags, same pass, same runtime; the sanitizer build adds the
# instrumentation and links libcopier_san.a), measured as the ratio of
# medians of interleaved runs (A, B, A, B, ...) in one invocation.
#
#   bench/sanitizer/slowdown.sh [RUNS]      (default 11)
#
# Workloads:
#   copy_parse   examples/copy_parse.c on /var/lib/dpkg/status (20 rounds,
#                so the parse, not process start, dominates)
#   capi_parse   examples/capi_parse.c (hand-written amemcpy +
#                csync_ready_end windows) on the same file (10 rounds)
#   zlib-example zlib's own test program (example), from make test
#   zlib-minigzip zlib's minigzip compressing then decompressing a real
#                file (the first 4 MiB of LLVM 22's shared library)
# Prints one line per workload: base and sanitizer medians (ms) and the ratio.
set -euo pipefail
. "$(dirname "$0")/../../testsuite/lib/common.sh"
need_built
RUNS=${1:-11}
OUT="$COPIER_ROOT/testsuite/out/bench-sanitizer"
mkdir -p "$OUT"

"$COPIERGEN" cc -O2 -g "$COPIER_ROOT/examples/copy_parse.c" -o "$OUT/copy_parse.base"
"$COPIERGEN" cc --sanitize -O2 -g "$COPIER_ROOT/examples/copy_parse.c" -o "$OUT/copy_parse.san"
"$COPIERGEN" cc -O2 -g "$COPIER_ROOT/examples/capi_parse.c" -o "$OUT/capi_parse.base"
"$COPIERGEN" cc --sanitize -O2 -g "$COPIER_ROOT/examples/capi_parse.c" -o "$OUT/capi_parse.san"
for v in "" --sanitize; do
  bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" zlib --build-only $v >/dev/null
done
ZB="$COPIER_ROOT/third_party/build/zlib"
ZS="$COPIER_ROOT/third_party/build/zlib-san"
INPUT="$OUT/input.bin"
head -c $((4 << 20)) "$(ls "$LLVM_PREFIX"/lib/libLLVM*.so* | head -1)" >"$INPUT"

now() { date +%s%N; }

# measure NAME CMD_BASE CMD_SAN: interleaved runs, medians, ratio.
measure() {
  local name=$1 a=$2 b=$3 i t0 t1
  local -a ta=() tb=()
  for ((i = 0; i < RUNS; i++)); do
    t0=$(now); bash -c "$a" >/dev/null 2>&1; t1=$(now); ta+=($(( (t1 - t0) / 1000 )))
    t0=$(now); bash -c "$b" >/dev/null 2>&1; t1=$(now); tb+=($(( (t1 - t0) / 1000 )))
  done
  local ma mb
  ma=$(printf '%s\n' "${ta[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  mb=$(printf '%s\n' "${tb[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  awk -v n="$name" -v a="$ma" -v b="$mb" -v r="$RUNS" \
    'BEGIN { printf "sanitizer-slowdown %-14s base=%.1fms sanitizer=%.1fms ratio=%.2f (median of %d interleaved runs)\n", n, a/1000, b/1000, b/a, r }'
}

measure copy_parse "'$OUT/copy_parse.base' /var/lib/dpkg/status 20" "'$OUT/copy_parse.san' /var/lib/dpkg/status 20"
measure capi_parse "'$OUT/capi_parse.base' /var/lib/dpkg/status 10" "'$OUT/capi_parse.san' /var/lib/dpkg/status 10"
measure zlib-example "cd '$ZB' && ./example" "cd '$ZS' && ./example"
measure zlib-minigzip "'$ZB/minigzip' < '$INPUT' | '$ZB/minigzip' -d" "'$ZS/minigzip' < '$INPUT' | '$ZS/minigzip' -d"
