#!/usr/bin/env bash
# CopierGen for MLIR: the tiled matmul and the copy-then-reduce (this
# folder's .mlir files) built without the pass (A: copiergen mlir --lower
# --no-rewrite) and with it (B: copiergen mlir --lower), both with
# --no-llvm-pass so only the MLIR rewrite differs. ROUNDS interleaved A/B
# runs (default 7); each run prints its kernel seconds (rtclock around
# REPS kernel calls). C is B with COPIER_OPTIONS=service=0 (every copy
# synchronous): the rewrite's own cost, without any overlap. Prints, per
# program, the medians, their spread (min-max) and the ratios A/B (> 1: the
# pass is faster) and A/C, measured in this run; appends them to
# bench/results/mlir-<date>.txt with the load average.
#
#   bench/mlir/run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/env.sh"
rounds=${1:-7}
cg=$root/target/release/copiergen
[ -x "$cg" ] && [ -x "$root/target/release/copiergen-mlir" ] || cargo build --release --locked -p copiergen-cli -p copiergen-mlir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$root/bench/results/mlir-$(date -u +%Y-%m-%d).txt
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
{
  echo "# bench/mlir/run.sh $rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  for prog in tiled_matmul copy_then_reduce; do
    pre=()
    # Inlining the kernel into main shows the pass that its buffers are distinct.
    [ "$prog" = tiled_matmul ] && pre=(--pass-pipeline='builtin.module(inline)')
    "$cg" mlir "${pre[@]}" --lower --no-rewrite --no-llvm-pass "$here/$prog.mlir" -o "$work/A"
    "$cg" mlir "${pre[@]}" --lower --no-llvm-pass "$here/$prog.mlir" -o "$work/B"
    cp "$work/B" "$work/C"
    : >"$work/a"; : >"$work/b"; : >"$work/c"; rm -f "$work/stats.A" "$work/stats.B" "$work/stats.C"
    for _ in $(seq "$rounds"); do
      for v in A B C; do
        opts=""
        [ "$v" = C ] && opts=service=0
        out=$(COPIER_OPTIONS=$opts COPIER_STATS_FILE="$work/stats.$v" "$work/$v")
        echo "$out" | head -n -1 >"$work/check.$v"
        echo "$out" | tail -1 >>"$work/$(echo $v | tr ABC abc)"
      done
      cmp -s "$work/check.A" "$work/check.B" && cmp -s "$work/check.A" "$work/check.C" \
        || { echo "$prog: A, B and C print different results" >&2; exit 1; }
    done
    ma=$(median <"$work/a"); mb=$(median <"$work/b"); mc=$(median <"$work/c")
    tasks=$(sed -n 's/.*copier: tasks=\([0-9]*\) .*/\1/p' "$work/stats.B" | sort -u | tr '\n' ' ')
    awk -v p="$prog" -v ma="$ma" -v mb="$mb" -v mc="$mc" -v t="$tasks" \
      -v sa="$(sort -g "$work/a" | sed -n '1p;$p' | tr '\n' ' ')" -v sb="$(sort -g "$work/b" | sed -n '1p;$p' | tr '\n' ' ')" \
      'BEGIN { printf "%s: without %.4f s (min-max %s), with %.4f s (min-max %s), ratio without/with %.3f; with, service=0: %.4f s, ratio %.3f; async tasks per run with the pass: %s\n", p, ma, sa, mb, sb, ma / mb, mc, ma / mc, t }'
  done
} | tee -a "$results"
