#!/usr/bin/env bash
# Many threads copying their own buffers (a user trial, issue 9): T threads,
# each memcpy 1 MiB (which copiergen turns into amemcpy), then read the
# copy back from its end (a csync_ready_end per window the pass checks),
# some threads forking. Plain clang-22 against copiergen cc at -O2, wall
# time of the whole process, in interleaved pairs (plain first in odd
# pairs, copiergen first in even ones); prints, per T, both medians, the
# median of the pair ratios copiergen / plain (1 = as fast as plain; lower
# is better) and their min..max.
#
#   bash bench/programs/manythreads.sh [--pairs N] [T ...]   (default 5 pairs; T: 8 64 200)
#
# Needs `cargo build --release` (target/release/copiergen, or COPIERGEN=path
# to compare another build of it and its runtime). Not part of
# scripts/test.sh; time it under the machine's exclusive lock.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAIRS=5
if [ "${1:-}" = --pairs ]; then PAIRS=${2:?usage: manythreads.sh [--pairs N] [T ...]}; shift 2; fi
case $PAIRS in '' | *[!0-9]* | 0) echo "manythreads.sh: --pairs takes a positive number, not $PAIRS" >&2; exit 2 ;; esac
THREADS=("${@:-8 64 200}")
read -r -a THREADS <<<"${THREADS[*]}"
for t in "${THREADS[@]}"; do
  case $t in '' | *[!0-9]*) echo "manythreads.sh: a thread count is a number, not $t" >&2; exit 2 ;; esac
  [ "$t" -le 300 ] || { echo "manythreads.sh: at most 300 threads, not $t" >&2; exit 2; }
done
CG=${COPIERGEN:-$ROOT/target/release/copiergen}
[ -x "$CG" ] || { echo "manythreads.sh: build first: cargo build --release" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
clang-22 -O2 "$ROOT/bench/programs/manythreads.c" -o "$OUT/plain" -lpthread
"$CG" cc -O2 "$ROOT/bench/programs/manythreads.c" -o "$OUT/cg" -lpthread
# one run: wall seconds; the output must match the plain build's
run() {
  local s e out
  s=$(date +%s%N)
  out=$("$OUT/$1" "$2")
  e=$(date +%s%N)
  [ "$out" = "$(cat "$OUT/want-$2")" ] || { echo "manythreads.sh: $1 with $2 threads printed '$out'" >&2; exit 1; }
  echo "scale=4; ($e - $s) / 1000000000" | bc
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# manythreads: T threads each copy 1 MiB and read it back from the end; -O2; $PAIRS interleaved pairs; uptime: $(uptime)"
printf '%-6s %10s %10s %8s %s\n' T plain_s cg_s ratio "min..max (copiergen / plain time)"
for t in "${THREADS[@]}"; do
  "$OUT/plain" "$t" >"$OUT/want-$t"
  : >"$OUT/a"; : >"$OUT/b"; : >"$OUT/r"
  for i in $(seq "$PAIRS"); do
    if [ $((i % 2)) = 1 ]; then a=$(run plain "$t"); b=$(run cg "$t"); else b=$(run cg "$t"); a=$(run plain "$t"); fi
    echo "$a" >>"$OUT/a"; echo "$b" >>"$OUT/b"; echo "scale=4; $b / $a" | bc >>"$OUT/r"
  done
  printf '%-6s %10s %10s %8s %s..%s\n' "$t" "$(median <"$OUT/a")" "$(median <"$OUT/b")" "$(median <"$OUT/r")" "$(sort -g "$OUT/r" | head -1)" "$(sort -g "$OUT/r" | tail -1)"
done
echo "# uptime after: $(uptime)"
