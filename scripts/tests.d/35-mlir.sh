#!/usr/bin/env bash
# CopierGen for MLIR (copiergen-mlir/): the rewrite, the lowering and whole
# programs. Budget: ~2.5 minutes of build (MLIR's static archives, once) plus
# about a minute of tests on 2 cores.
#  1. cargo test -p copiergen-mlir: pattern snapshots (insta), diagnostics;
#  2. every rewritten pattern parses back in mlir-opt-22
#     (--allow-unregistered-dialect); malformed input: diagnostics, exit 4;
#  3. end-to-end programs (tests/e2e/*.mlir) through `copiergen mlir --lower`:
#     the same output as the build without the pass; asynchronous copies in
#     COPIER_STATS from the MLIR pass alone (--no-llvm-pass); with the LLVM
#     pass after it; under CopierSanitizer with zero reports; and with its
#     waits deleted, the sanitizer reports (the check can fail).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
root=$PWD
cargo build --release --locked -p copiergen-mlir -p copiergen-cli
cg=$root/target/release/copiergen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "35-mlir: cargo test -p copiergen-mlir (pattern snapshots, diagnostics)"
cargo test --release --locked -p copiergen-mlir

echo "35-mlir: rewritten patterns parse in mlir-opt-22"
n=0
for f in copiergen-mlir/tests/patterns/*.mlir; do
  "$cg" mlir "$f" -o "$work/out.mlir"
  mlir-opt-22 --allow-unregistered-dialect "$work/out.mlir" -o /dev/null
  n=$((n + 1))
done
echo "35-mlir: $n patterns round-trip"

printf 'func.func @f() {\n  %%x = memref.alloc() : memref<4xf64\n}\n' > "$work/bad.mlir"
set +e
"$cg" mlir "$work/bad.mlir" -o "$work/bad.out" 2>"$work/bad.err"
rc=$?
set -e
if [ "$rc" != 4 ] || ! grep -q "bad.mlir:2:.*: error:" "$work/bad.err"; then
  echo "35-mlir: malformed input: exit $rc, stderr: $(cat "$work/bad.err")" >&2
  exit 1
fi
echo "35-mlir: malformed input: MLIR's diagnostic, exit 4"

# An executable of a module without main: our error, not the linker's.
printf 'module {\n}\n' > "$work/empty.mlir"
set +e
"$cg" mlir --lower "$work/empty.mlir" -o "$work/empty.out" 2>"$work/empty.err"
rc=$?
set -e
if [ "$rc" != 4 ] || ! grep -q "defines no \`main\` function" "$work/empty.err" || grep -q "undefined reference" "$work/empty.err"; then
  echo "35-mlir: empty module --lower: exit $rc, stderr: $(cat "$work/empty.err")" >&2
  exit 1
fi
echo "35-mlir: empty module --lower: a clear error, exit 4"

bufferize='builtin.module(one-shot-bufferize{bufferize-function-boundaries})'
tasks_of() { sed -n 's/.*copier: tasks=\([0-9]*\) .*/\1/p' "$1" | tail -1; }
for src in copiergen-mlir/tests/e2e/*.mlir; do
  name=$(basename "$src" .mlir)
  # The e2e buffers are small (64 KiB tiles): libcopier's threshold, not the
  # MLIR pass's cost model (256 KiB), so that each program has asynchronous copies.
  pre=(--threshold 16384)
  case "$name" in bufferized_*) pre+=(--pass-pipeline="$bufferize") ;; esac
  "$cg" mlir "${pre[@]}" --lower --no-rewrite --no-llvm-pass "$src" -o "$work/$name.plain"
  "$cg" mlir "${pre[@]}" --lower --no-llvm-pass "$src" -o "$work/$name.mlirpass"
  "$cg" mlir "${pre[@]}" --lower "$src" -o "$work/$name.both"
  "$cg" mlir "${pre[@]}" --lower --sanitize "$src" -o "$work/$name.san"
  expected=$("$work/$name.plain")
  for v in mlirpass both san; do
    out=$(COPIER_STATS=1 "$work/$name.$v" 2>"$work/err") || { cat "$work/err" >&2; echo "35-mlir: $name.$v: exit $?" >&2; exit 1; }
    if [ "$out" != "$expected" ]; then
      echo "35-mlir: $name.$v printed '$out', the plain build '$expected'" >&2
      exit 1
    fi
    if grep -q "CopierSanitizer" "$work/err"; then
      cat "$work/err" >&2
      echo "35-mlir: $name.$v: sanitizer report" >&2
      exit 1
    fi
    t=$(tasks_of "$work/err")
    if [ -z "$t" ] || [ "$t" = 0 ]; then
      echo "35-mlir: $name.$v: no asynchronous copy ($(cat "$work/err"))" >&2
      exit 1
    fi
    echo "35-mlir: $name.$v: same output, tasks=$t"
  done
  # Negative control: the rewritten program without its waits is reported.
  "$cg" mlir "${pre[@]}" "$src" -o "$work/$name.rw.mlir"
  grep -v '"copier.wait"' "$work/$name.rw.mlir" > "$work/$name.nowait.mlir"
  "$cg" mlir --threshold 16384 --no-rewrite --lower --sanitize "$work/$name.nowait.mlir" -o "$work/$name.nowait"
  if "$work/$name.nowait" >/dev/null 2>"$work/err" || ! grep -q "ERROR: CopierSanitizer" "$work/err"; then
    echo "35-mlir: $name without waits: no sanitizer report" >&2
    exit 1
  fi
  echo "35-mlir: $name without waits: reported ($(grep -o 'CopierSanitizer: [a-z-]*' "$work/err" | head -1))"
done
# The cost model's threshold holds through the LLVM pass of the link step: a
# 128 KiB copy below the default (256 KiB) stays synchronous in the whole
# pipeline, and goes asynchronous with --threshold 16384 (the check can fail).
cat > "$work/small.mlir" <<'MLIR'
func.func private @printF64(f64)
func.func private @printNewline()
func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16384 : index
  %src = memref.alloc() : memref<16384xf64>
  %dst = memref.alloc() : memref<16384xf64>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    memref.store %f, %src[%i] : memref<16384xf64>
  }
  memref.copy %src, %dst : memref<16384xf64> to memref<16384xf64>
  %c7 = arith.constant 7777 : index
  %v = memref.load %dst[%c7] : memref<16384xf64>
  call @printF64(%v) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %src : memref<16384xf64>
  memref.dealloc %dst : memref<16384xf64>
  %r = arith.constant 0 : i32
  return %r : i32
}
MLIR
for th in default 16384; do
  if [ $th = default ]; then a=(); else a=(--threshold $th); fi
  "$cg" mlir "${a[@]}" --lower "$work/small.mlir" -o "$work/small.$th"
  out=$(COPIER_STATS=1 "$work/small.$th" 2>"$work/err")
  t=$(tasks_of "$work/err")
  [ "$out" = 7777 ] || { echo "35-mlir: small.$th printed '$out'" >&2; exit 1; }
  if { [ $th = default ] && [ "${t:-0}" != 0 ]; } || { [ $th != default ] && [ "${t:-0}" = 0 ]; }; then
    echo "35-mlir: 128 KiB copy, threshold $th: tasks=${t:-none} ($(cat "$work/err"))" >&2
    exit 1
  fi
  echo "35-mlir: 128 KiB copy, threshold $th, with the LLVM pass: tasks=${t:-0}"
done
echo "35-mlir: all MLIR checks passed"
