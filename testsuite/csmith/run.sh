#!/usr/bin/env bash
# Differential testing of CopierGen with csmith.
#
#   testsuite/csmith/run.sh N SEED [JOBS]
#
# Generates N csmith programs (seeds SEED..SEED+N-1; odd seeds use a
# struct/array-heavy option profile, since struct assignment and aggregate
# copies are where csmith programs copy memory), and builds each four ways:
# baseline (copiergen cc --copier-no-rewrite) and CopierGen with
# --copier-threshold=1 (every copy rewritten, however small), each at -O0 and
# -O2. The CopierGen build must print the baseline's checksum at the same
# optimisation level. Programs whose baseline times out, or whose -O0 and -O2
# baselines disagree (a compiler problem outside CopierGen), are skipped and
# counted. csmith does not emit setjmp/longjmp, so the clang-22 setjmp bug
# (TOOLCHAIN.md) cannot make a baseline wrong here.
#
# Each mismatch leaves its program in testsuite/out/csmith/mismatch-<seed>.c;
# minimise it (cvise) into testsuite/e2e/regressions/. Exit status 1 if any.
# The CopierGen builds run with COPIER_OPTIONS=threshold=1 (the runtime
# sends every copy to the service) and COPIER_STATS=1.
# Prints: csmith: <n> programs, <c> compared, <m> mismatches, <f> build
# failures, <s> skipped; <r> copies rewritten, <a> ran asynchronously
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
need_built

N=${1:?usage: run.sh N SEED [JOBS]}
SEED=${2:?usage: run.sh N SEED [JOBS]}
JOBS=${3:-$(nproc)}
OUT="$COPIER_ROOT/testsuite/out/csmith"
mkdir -p "$OUT/runs"
CSMITH_INC=/usr/include/csmith
[ -f "$CSMITH_INC/csmith.h" ] || { echo "csmith headers missing ($CSMITH_INC): bash scripts/deps.sh" >&2; exit 1; }
command -v csmith >/dev/null || { echo "csmith missing: bash scripts/deps.sh" >&2; exit 1; }

PROFILE_STRUCTS=(--max-struct-fields 24 --max-array-dim 2 --max-array-len-per-dim 24 --no-bitfields --max-funcs 8)

# one SEED: prints one result line "<seed> <status> <rewritten>"
# status: same | MISMATCH-O0 | MISMATCH-O2 | skip-gen | skip-timeout | skip-base-disagree | BUILD-FAIL
one() {
  local seed=$1 d="$OUT/runs/$1"
  rm -rf "$d"; mkdir -p "$d"
  local opts=()
  [ $((seed % 2)) = 1 ] && opts=("${PROFILE_STRUCTS[@]}")
  # csmith writes platform.info into its working directory.
  if ! (cd "$d" && timeout 20 csmith --seed "$seed" "${opts[@]}" >p.c 2>/dev/null); then
    echo "$seed skip-gen 0 0"; return
  fi
  local rewritten=0 o
  for o in O0 O2; do
    if ! timeout 120 "$COPIERGEN" cc --copier-no-rewrite -"$o" -w -I"$CSMITH_INC" "$d/p.c" -o "$d/base-$o" 2>"$d/base-$o.log" ||
       ! timeout 120 "$COPIERGEN" cc --copier-threshold=1 --copier-remarks -"$o" -w -I"$CSMITH_INC" "$d/p.c" -o "$d/cg-$o" 2>"$d/cg-$o.log"; then
      echo "$seed BUILD-FAIL 0 0"; return
    fi
    rewritten=$((rewritten + $(count_remarks "$d/cg-$o.log" | cut -d' ' -f1)))
  done
  local b0 b2 c0 c2
  b0=$(timeout 10 "$d/base-O0" 2>/dev/null) || { echo "$seed skip-timeout $rewritten 0"; return; }
  b2=$(timeout 10 "$d/base-O2" 2>/dev/null) || { echo "$seed skip-timeout $rewritten 0"; return; }
  [ "$b0" = "$b2" ] || { echo "$seed skip-base-disagree $rewritten 0"; return; }
  # The runtime's inline threshold drops to 1 byte too, so csmith's small
  # copies really run on the service.
  c0=$(COPIER_STATS=1 COPIER_OPTIONS=threshold=1 timeout 30 "$d/cg-O0" 2>"$d/cg-O0.err") || c0="exit $?: $c0"
  c2=$(COPIER_STATS=1 COPIER_OPTIONS=threshold=1 timeout 30 "$d/cg-O2" 2>"$d/cg-O2.err") || c2="exit $?: $c2"
  local tasks
  tasks=$(cat "$d"/cg-O*.err | sed -n 's/.*copier: tasks=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
  if [ "$c0" != "$b0" ]; then
    cp "$d/p.c" "$OUT/mismatch-$seed.c"; echo "$seed MISMATCH-O0 $rewritten $tasks"; return
  fi
  if [ "$c2" != "$b2" ]; then
    cp "$d/p.c" "$OUT/mismatch-$seed.c"; echo "$seed MISMATCH-O2 $rewritten $tasks"; return
  fi
  rm -rf "$d"
  echo "$seed same $rewritten $tasks"
}
export -f one count_remarks
export OUT COPIERGEN CSMITH_INC
export PROFILE_STRUCTS_STR="${PROFILE_STRUCTS[*]}"

start=$(date +%s)
seq "$SEED" $((SEED + N - 1)) |
  xargs -P "$JOBS" -I{} bash -c 'PROFILE_STRUCTS=($PROFILE_STRUCTS_STR); one "$@"' _ {} >"$OUT/results.txt"
sort -n "$OUT/results.txt" -o "$OUT/results.txt"
awk -v secs=$(( $(date +%s) - start )) '
  { n++; rw += $3; at += $4 }
  $2 == "same" { c++ }
  $2 ~ /^MISMATCH/ { m++; c++; print "csmith: seed " $1 " " $2 " (program kept as testsuite/out/csmith/mismatch-" $1 ".c)" }
  $2 == "BUILD-FAIL" { f++; print "csmith: seed " $1 " failed to build" }
  $2 ~ /^skip/ { s++ }
  END { printf "csmith: %d programs, %d compared, %d mismatches, %d build failures, %d skipped; %d copies rewritten, %d ran asynchronously; %ds\n", n, c, m, f, s, rw, at, secs
        exit (m + f > 0) }' "$OUT/results.txt"
