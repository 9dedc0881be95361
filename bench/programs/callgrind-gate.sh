#!/usr/bin/env bash
# Instruction-count gate: CopierGen must not make zlib, lz4 or protobuf-c
# execute more than 2% more instructions than plain clang-22.
#
#   bench/programs/callgrind-gate.sh [zlib] [lz4] [protobuf-c]   (default: all)
#
# Each program is built twice from one Debian source tree (lib/build.sh:
# plain clang-22, and `copiergen cc` with the pass's defaults, same flags),
# then run under `valgrind --tool=callgrind` on fixed small inputs:
#   zlib        minigzip -6 of 1 MiB and minigzip -d of 8 MiB (compressed by
#               the plain build, -6) of zlib's own Debian orig tarball
#               (uncompressed tar, repeated)
#   lz4         lz4 -1 and lz4 -d (files) of 16 MiB of lz4's tarball
#   protobuf-c  bench/compiler/pbc_unpack.c, pack and unpack of 32 chunks
#               with 4 KiB bytes fields, 2000 rounds each
# It prints one line per figure, "gate PROGRAM FIGURE: plain_Ir=N
# copiergen_Ir=N ratio=R PASS|FAIL", and exits 1 when a ratio
# (copiergen / plain) is above GATE_LIMIT (default 1.02) or a build fails.
#
# What is counted: Ir of the whole process, every thread, from the first
# instruction to exit. That is what a user pays, runtime start-up and exit
# included; main's subtree alone would hide the runtime's constructor and
# the copies a service thread runs. The runtime's start-up and exit cost
# about 0.23 M instructions (a hello-world: 0.13 M plain, 0.35 M copiergen):
# the inputs are sized so that every figure counts 80 M or more, which keeps
# that fixed cost under 0.3% of the 2% allowed.
#
# Determinism: the runtime's service thread polls for poll_us of wall time
# before it parks, so its instruction count depends on timing, and callgrind
# counts every thread. The gate runs with COPIER_OPTIONS=spawn=0: no service
# thread; a copy is queued exactly as in a default run, guards and csyncs run
# the same code, and the csync that needs a copy executes it itself. So the
# counted work is plain's work plus everything CopierGen adds (guards,
# submits, tracking, waits), with no polling and no timing in it: two runs
# give the same count. It errs towards failing: a copy stays pending until
# its csync, so guards in between see a pending copy more often than with a
# service that finishes early. GATE_COPIER_OPTIONS overrides the options
# (e.g. empty, for the defaults; then counts may vary between runs).
#
# Valgrind 3.19 cannot read clang-22's DWARF 5: each executable runs as a
# copy with the debug sections removed (objcopy --strip-debug; same code).
# Takes about 3-4 minutes for all three on 2 cores (builds included; a
# build whose inputs did not change is reused, see lib/build.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/build.sh"
. "$HERE/lib/programs.sh"
need_built
command -v valgrind >/dev/null || { echo "callgrind-gate: valgrind is missing (bash scripts/deps.sh)" >&2; exit 1; }
LIMIT=${GATE_LIMIT:-1.02}
export COPIER_OPTIONS=${GATE_COPIER_OPTIONS-spawn=0}
ALL=(zlib lz4 protobuf-c)
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=("${ALL[@]}")
for p in "${progs[@]}"; do
  case " ${ALL[*]} " in *" $p "*) ;; *) echo "callgrind-gate: unknown program $p (${ALL[*]})" >&2; exit 2 ;; esac
done
OUT="$COPIER_ROOT/testsuite/out/callgrind-gate"
rm -rf "$OUT"
mkdir -p "$OUT"
failed=0
declare -A c d # per mode: Ir of the first and second figure

# orig_head PKG BYTES OUT: PKG's Debian orig tarball, uncompressed and
# repeated up to BYTES, into OUT (repeats lie farther apart than the
# compressors' windows, 32 and 64 KiB: they compress as fresh data).
orig_head() {
  local f
  f=$(ls "$BENCH_BUILD_DIR/src/$1"_*.orig.tar.* | head -1)
  case $f in
    *.gz) zcat "$f" ;;
    *.bz2) bzcat "$f" ;;
    *.xz) xzcat "$f" ;;
    *) echo "orig_head: unknown compression of $f" >&2; return 1 ;;
  esac >"$3.full"
  [ -s "$3.full" ] || { echo "orig_head: $f is empty" >&2; return 1; }
  : >"$3"
  while [ "$(stat -c %s "$3")" -lt "$2" ]; do cat "$3.full" >>"$3"; done
  truncate -s "$2" "$3"
  rm -f "$3.full"
}

# irs FILE: total Ir in a callgrind output file.
irs() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }

# count NAME STDIN STDOUT EXE ARGS...: runs a stripped copy of EXE under
# callgrind (stdin and stdout from and to the given files) and prints its
# total Ir.
count() {
  local name=$1 in=$2 out=$3 exe=$4 copy
  shift 4
  copy="$OUT/$name.exe"
  objcopy --strip-debug "$exe" "$copy"
  valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.cg" --log-file="$OUT/$name.vg.log" \
    "$copy" "$@" <"$in" >"$out" || { echo "callgrind-gate: $name exited non-zero (see ${OUT#"$COPIER_ROOT"/}/$name.vg.log)" >&2; return 1; }
  irs "$OUT/$name.cg"
}

# verdict PROGRAM FIGURE PLAIN_IR COPIERGEN_IR
verdict() {
  local r v
  r=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.3f", b / a }')
  v=PASS
  awk -v r="$r" -v l="$LIMIT" 'BEGIN { exit !(r > l) }' && { v=FAIL; failed=1; }
  echo "gate $1 $2: plain_Ir=$3 copiergen_Ir=$4 ratio=$r $v"
}

build_both() {
  local m
  for m in plain copiergen; do
    if ! bench_build "$1" $m; then
      echo "gate $1: FAIL (build $m: $BENCH_BUILD_ERROR)"
      failed=1
      return 1
    fi
  done
}

for p in "${progs[@]}"; do
  build_both "$p" || continue
  case $p in
    zlib)
      orig_head zlib 1048576 "$OUT/zlib.in"
      orig_head zlib 8388608 "$OUT/zlib-d.in"
      "$(bench_tree zlib plain)/minigzip" -6 <"$OUT/zlib-d.in" >"$OUT/zlib-d.gz"
      for m in plain copiergen; do
        t=$(bench_tree zlib $m)
        c[$m]=$(count zlib-c-$m "$OUT/zlib.in" "$OUT/zlib-$m.gz" "$t/minigzip" -6)
        d[$m]=$(count zlib-d-$m "$OUT/zlib-d.gz" "$OUT/zlib-$m.out" "$t/minigzip" -d)
        cmp -s "$OUT/zlib-d.in" "$OUT/zlib-$m.out" || { echo "gate zlib: FAIL ($m decompressed output differs)"; failed=1; }
      done
      cmp -s "$OUT/zlib-plain.gz" "$OUT/zlib-copiergen.gz" || { echo "gate zlib: FAIL (compressed outputs differ)"; failed=1; }
      verdict zlib "minigzip -6" "${c[plain]}" "${c[copiergen]}"
      verdict zlib "minigzip -d" "${d[plain]}" "${d[copiergen]}"
      ;;
    lz4)
      orig_head lz4 16777216 "$OUT/lz4.in"
      for m in plain copiergen; do
        t=$(bench_tree lz4 $m)
        c[$m]=$(count lz4-c-$m /dev/null /dev/null "$t/lz4" -1 -q -f "$OUT/lz4.in" "$OUT/lz4-$m.lz4")
        d[$m]=$(count lz4-d-$m /dev/null /dev/null "$t/lz4" -d -q -f "$OUT/lz4-$m.lz4" "$OUT/lz4-$m.out")
        cmp -s "$OUT/lz4.in" "$OUT/lz4-$m.out" || { echo "gate lz4: FAIL ($m round trip differs)"; failed=1; }
      done
      cmp -s "$OUT/lz4-plain.lz4" "$OUT/lz4-copiergen.lz4" || { echo "gate lz4: FAIL (compressed outputs differ)"; failed=1; }
      verdict lz4 "lz4 -1" "${c[plain]}" "${c[copiergen]}"
      verdict lz4 "lz4 -d" "${d[plain]}" "${d[copiergen]}"
      ;;
    protobuf-c)
      for m in plain copiergen; do
        exe=$(pbc_program $m) || { echo "gate protobuf-c: FAIL (building pbc_unpack, $m)"; failed=1; continue 2; }
        c[$m]=$(count pbc-pack-$m /dev/null "$OUT/pbc-pack-$m.out" "$exe" 32 4096 2000 pack)
        d[$m]=$(count pbc-unpack-$m /dev/null "$OUT/pbc-unpack-$m.out" "$exe" 32 4096 2000 unpack)
      done
      for f in pack unpack; do
        [ "$(cut -d' ' -f2 "$OUT/pbc-$f-plain.out")" = "$(cut -d' ' -f2 "$OUT/pbc-$f-copiergen.out")" ] ||
          { echo "gate protobuf-c: FAIL ($f checksums differ)"; failed=1; }
      done
      verdict protobuf-c "pack 32x4KiB" "${c[plain]}" "${c[copiergen]}"
      verdict protobuf-c "unpack 32x4KiB" "${d[plain]}" "${d[copiergen]}"
      ;;
  esac
done
exit $failed
