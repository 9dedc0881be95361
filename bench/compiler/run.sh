#!/usr/bin/env bash
# Issue-3 benchmarks of CopierGen, each a ratio "with pass / without pass"
# measured in this run from interleaved A/B runs (medians):
#
#  1. compile time of the Redis server (src/, -j2, same flags; A =
#     copiergen cc --copier-no-rewrite, B = copiergen cc): CPU time
#     (user+sys of all compiler processes) and wall time. Target <= 1.03.
#     Also plain clang-22 (no wrapper) for the wrapper's own cost.
#  2. examples/copy_parse on dpkg's status file (copy-then-parse): wall time.
#  3. protobuf-c unpacking of messages with large `bytes` fields
#     (bench/compiler/pbc_unpack.c against libprotobuf-c built with and
#     without the pass): ns per unpack+consume round.
#
#   bench/compiler/run.sh [REPS]      (default 5; Redis uses REDIS_REPS, default min(REPS,3))
#  4. the cost model's trade (bench/compiler/overlap.c): amemcpy + W
#     instructions of independent work + csync against memcpy + the same
#     work, for 16 KiB - 1 MiB and W = 0 - 16384: where the asynchronous
#     copy starts to pay (-copiergen-min-overlap's default is far below).
#
#   ONLY=redis|copy_parse|pbc|overlap runs one benchmark
#
# Needs the real plugin and runtime (cargo build --release) and fetches
# Debian sources through testsuite/thirdparty/run.sh. Prints one line per
# benchmark and writes them to bench/compiler/results.txt.
set -euo pipefail
. "$(dirname "$0")/../../testsuite/lib/common.sh"
need_built
REPS=${1:-5}
HERE="$COPIER_ROOT/bench/compiler"
OUT="$COPIER_ROOT/testsuite/out/bench-compiler"
BUILD="$COPIER_ROOT/third_party/build"
mkdir -p "$OUT"
results="$HERE/results.txt"
: >"$OUT/results.txt"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }
report() { echo "$*" | tee -a "$OUT/results.txt"; }
now_ns() { date +%s%N; }

ONLY=${ONLY:-}
# ---- 1. Redis compile time ---------------------------------------------------
if [ -z "$ONLY" ] || [ "$ONLY" = redis ]; then
bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" redis --build-only >/dev/null
# Redis's src/Makefile rebuilds deps/ whenever CC changes (.make-settings):
# the plain-clang runs get their own copy of the tree, settled once.
redis_src="$BUILD/redis/src"
rm -rf "$BUILD/redis-plain"
cp -a "$BUILD/redis" "$BUILD/redis-plain"
redis_make=(-j2 USE_SYSTEM_JEMALLOC=yes USE_JEMALLOC=yes OPTIMIZATION=-O2 redis-server)
make -C "$BUILD/redis-plain" distclean >/dev/null 2>&1
make -C "$BUILD/redis-plain/src" "${redis_make[@]}" CC=clang-22 >"$OUT/redis-plain-settle.log" 2>&1 ||
  { tail -20 "$OUT/redis-plain-settle.log"; exit 1; }
# time_build MODE: prints "<cpu seconds> <wall seconds>" for one clean build of src/.
time_build() {
  local mode=$1 cc="CC=$COPIERGEN cc" src="$redis_src"
  case $mode in
    plain) cc="CC=clang-22"; src="$BUILD/redis-plain/src" ;;
    norewrite) export COPIERGEN_FLAGS=--copier-no-rewrite ;;
    rewrite) export COPIERGEN_FLAGS= ;;
  esac
  make -C "$src" clean >/dev/null 2>&1
  /usr/bin/time -f "%U %S %e" -o "$OUT/time.txt" make -C "$src" "${redis_make[@]}" "$cc" >"$OUT/redis-$mode.log" 2>&1 ||
    { tail -20 "$OUT/redis-$mode.log" >&2; exit 1; }
  awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' "$OUT/time.txt"
}
REDIS_REPS=${REDIS_REPS:-$((REPS < 3 ? REPS : 3))}
for _ in $(seq 1 "$REDIS_REPS"); do
  for mode in norewrite rewrite plain; do
    read -r cpu wall < <(time_build $mode)
    echo "$cpu" >>"$OUT/redis-$mode.cpu"
    echo "$wall" >>"$OUT/redis-$mode.wall"
  done
done
unset COPIERGEN_FLAGS
a=$(median <"$OUT/redis-norewrite.cpu"); b=$(median <"$OUT/redis-rewrite.cpu"); p=$(median <"$OUT/redis-plain.cpu")
aw=$(median <"$OUT/redis-norewrite.wall"); bw=$(median <"$OUT/redis-rewrite.wall")
report "redis-compile: cpu with/without pass = $(ratio "$a" "$b") (median ${b}s vs ${a}s), wall = $(ratio "$aw" "$bw"); wrapper without pass vs plain clang-22 cpu = $(ratio "$p" "$a")"
rm -f "$OUT"/redis-*.cpu "$OUT"/redis-*.wall
# The pass's own share, insensitive to machine load: clang's -ftime-report
# times every pass in-process; the plugin's passes are RustModulePass.
printf '#!/bin/sh\nexec clang-22 "$@" -ftime-report\n' >"$OUT/clang-timed"
chmod +x "$OUT/clang-timed"
make -C "$redis_src" clean >/dev/null 2>&1
COPIERGEN_CLANG="$OUT/clang-timed" /usr/bin/time -f "%U %S" -o "$OUT/time.txt" \
  make -C "$redis_src" "${redis_make[@]}" "CC=$COPIERGEN cc" >"$OUT/redis-timereport.log" 2>&1
pass_s=$(awk '/RustModulePass/ { gsub(/\([^)]*\)/, ""); s += $3 } END { printf "%.2f", s }' "$OUT/redis-timereport.log")
build_s=$(awk '{ printf "%.2f", $1 + $2 }' "$OUT/time.txt")
report "redis-compile: the plugin's passes take ${pass_s}s of the ${build_s}s build CPU ($(awk -v p="$pass_s" -v b="$build_s" 'BEGIN { printf "%.2f", 100 * p / b }') %, clang -ftime-report)"
fi

# ---- 2. copy_parse -------------------------------------------------------------
if [ -z "$ONLY" ] || [ "$ONLY" = copy_parse ]; then
"$COPIERGEN" cc -O2 --copier-no-rewrite "$COPIER_ROOT/examples/copy_parse.c" -o "$OUT/copy_parse.A"
"$COPIERGEN" cc -O2 "$COPIER_ROOT/examples/copy_parse.c" -o "$OUT/copy_parse.B"
input=/var/lib/dpkg/status
rounds=40
for _ in $(seq 1 "$REPS"); do
  for m in A B; do
    t0=$(now_ns)
    "$OUT/copy_parse.$m" "$input" $rounds >"$OUT/copy_parse.$m.out"
    echo $(( $(now_ns) - t0 )) >>"$OUT/copy_parse.$m.ns"
  done
done
cmp -s "$OUT/copy_parse.A.out" "$OUT/copy_parse.B.out" || { echo "copy_parse: outputs differ" >&2; exit 1; }
a=$(median <"$OUT/copy_parse.A.ns"); b=$(median <"$OUT/copy_parse.B.ns")
report "copy_parse: time with/without pass = $(ratio "$a" "$b") (median $((${b%.*} / 1000000)) ms vs $((${a%.*} / 1000000)) ms, $rounds x $(stat -c %s $input) bytes)"
rm -f "$OUT"/copy_parse.*.ns
fi

# ---- 3. protobuf-c unpack --------------------------------------------------------
if [ -z "$ONLY" ] || [ "$ONLY" = pbc ]; then
bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" protobuf-c --build-only >/dev/null
bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" protobuf-c --no-rewrite --build-only >/dev/null
gen="$OUT/pbc-gen"
mkdir -p "$gen"
protoc --plugin=protoc-gen-c="$BUILD/protobuf-c/protoc-c/protoc-gen-c" --c_out="$gen" -I"$HERE" "$HERE/bigmsg.proto"
for m in A B; do
  tree="$BUILD/protobuf-c"; flag=""
  [ $m = A ] && { tree="$BUILD/protobuf-c-norewrite"; flag=--copier-no-rewrite; }
  "$COPIERGEN" cc -O2 $flag -I"$tree" -I"$gen" "$HERE/pbc_unpack.c" "$gen/bigmsg.pb-c.c" \
    "$tree/protobuf-c/.libs/libprotobuf-c.a" -o "$OUT/pbc_unpack.$m"
done
for _ in $(seq 1 "$REPS"); do
  for m in A B; do
    "$OUT/pbc_unpack.$m" 16 262144 100 >"$OUT/pbc.$m.out"
    sed -n 's/ns_per_round=\([0-9]*\).*/\1/p' "$OUT/pbc.$m.out" >>"$OUT/pbc.$m.ns"
  done
done
[ "$(cut -d' ' -f2 "$OUT/pbc.A.out")" = "$(cut -d' ' -f2 "$OUT/pbc.B.out")" ] || { echo "pbc_unpack: checksums differ" >&2; exit 1; }
a=$(median <"$OUT/pbc.A.ns"); b=$(median <"$OUT/pbc.B.ns")
report "protobuf-c unpack (16 x 256 KiB bytes fields): time with/without pass = $(ratio "$a" "$b") (median $((${b%.*} / 1000)) us vs $((${a%.*} / 1000)) us per message)"
rm -f "$OUT"/pbc.*.ns
fi

# ---- 4. cost model: overlap needed before amemcpy pays -------------------------
if [ -z "$ONLY" ] || [ "$ONLY" = overlap ]; then
clang-22 -O2 -I"$COPIER_ROOT/runtime/include" "$HERE/overlap.c" "$COPIER_ROOT/target/release/libcopier.a" \
  -lpthread -ldl -lm -o "$OUT/overlap"
for bytes in 16384 65536 262144 1048576; do
  line="overlap $((bytes / 1024)) KiB: amemcpy+work+csync / memcpy+work ="
  for w in 0 64 256 1024 4096 16384; do
    r=$("$OUT/overlap" "$bytes" "$w" "$((REPS * 20 + 1))" | sed -n 's/.*ratio=\([0-9.]*\).*/\1/p')
    line="$line $r (W=$w)"
  done
  report "$line"
done
fi

[ -n "$ONLY" ] || { echo "# bench/compiler/run.sh $REPS on $(date -u +%Y-%m-%d), $(nproc) cores; ratios are with-pass / without-pass"; cat "$OUT/results.txt"; } >"$results"
