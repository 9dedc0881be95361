#!/usr/bin/env bash
# CopierGen pass plugin (passes/, testsuite/): loads in every LLVM 22 host
# and rewrites correctly. Budget: about 3 minutes on 2 cores.
#  1. IR snapshots (insta) + program runs with/without the plugin
#     (cargo test -p copier-testsuite);
#  2. opt-22 -passes=copiergen,verify over every input at -O0, -O1, -O2;
#  3. the plugin in clang-22 (-O0, -O2), opt-22, ld.lld-22 full LTO and
#     ThinLTO, and rustc 1.95 (-C linker-plugin-lto): each build runs and
#     prints what the plain build prints, with copies submitted.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
root=$PWD
plugin=$root/target/release/libcopiergen.so
[ -f "$plugin" ] || cargo build --release --locked -p copiergen-passes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "30-pass: clang-format-22 (LLVM style) on passes/cpp"
clang-format-22 --dry-run --Werror passes/cpp/*.cpp passes/cpp/*.h

echo "30-pass: cargo test -p copier-testsuite (IR snapshots, program runs, remarks)"
cargo test --release --locked -p copier-testsuite

echo "30-pass: opt-22 -passes=copiergen,verify over testsuite/ir at -O0 -O1 -O2"
n=0
for f in testsuite/ir/*.c testsuite/ir/*.cpp testsuite/ir/*.ll; do
  [ -e "$f" ] || continue
  case "$f" in
    *.ll) levels="none" ;;
    *) levels="-O0 -O1 -O2" ;;
  esac
  for lvl in $levels; do
    if [ "$lvl" = none ]; then
      cp "$f" "$work/in.ll"
    else
      cc=clang-22; [ "${f##*.}" = cpp ] && cc=clang++-22
      $cc "$lvl" -g -S -emit-llvm "$f" -o "$work/in.ll"
    fi
    opt-22 -load-pass-plugin="$plugin" -passes=copiergen,verify -disable-output "$work/in.ll"
    n=$((n + 1))
  done
done
echo "30-pass: verifier accepted $n pass outputs"

clang-22 -O1 -c testsuite/support/copier_deferred.c -o "$work/copier_deferred.o"
ar rcs "$work/libcopier_deferred.a" "$work/copier_deferred.o"
prog=testsuite/ir/parse_loop_windowed.c
clang-22 -O2 "$prog" "$work/copier_deferred.o" -o "$work/plain"
expected=$("$work/plain")

# Runs a binary built with the plugin: same output as the plain build, and
# at least one asynchronous copy submitted (deferred runtime statistics).
check_run() {
  local what=$1 exe=$2 out err
  out=$(COPIER_DEFERRED_STATS=1 "$exe" 2>"$work/err") || { cat "$work/err"; echo "30-pass: $what: exit $?" >&2; exit 1; }
  err=$(cat "$work/err")
  if [ "$out" != "$expected" ]; then
    echo "30-pass: $what: output '$out' differs from plain '$expected'" >&2
    exit 1
  fi
  case "$err" in
    *"submitted=0 "*|"") echo "30-pass: $what: no asynchronous copy ($err)" >&2; exit 1 ;;
  esac
  echo "30-pass: $what: ok (${err#copier-deferred: })"
}

for lvl in -O0 -O2; do
  clang-22 "$lvl" -fpass-plugin="$plugin" "$prog" "$work/copier_deferred.o" -o "$work/clang$lvl"
  check_run "clang-22 $lvl -fpass-plugin" "$work/clang$lvl"
done

clang-22 -O2 -S -emit-llvm "$prog" -o "$work/prog.ll"
opt-22 -load-pass-plugin="$plugin" -passes=copiergen "$work/prog.ll" -o "$work/prog.bc"
clang-22 -O2 "$work/prog.bc" "$work/copier_deferred.o" -o "$work/opt"
check_run "opt-22 -passes=copiergen" "$work/opt"

clang-22 -O2 -flto -c "$prog" -o "$work/full.o"
clang-22 -flto -fuse-ld=lld -Wl,--load-pass-plugin="$plugin" "$work/full.o" "$work/copier_deferred.o" -o "$work/lto"
check_run "ld.lld-22 full LTO --load-pass-plugin" "$work/lto"

clang-22 -O2 -flto=thin -c "$prog" -o "$work/thin.o"
clang-22 -flto=thin -fuse-ld=lld -Wl,--load-pass-plugin="$plugin" "$work/thin.o" "$work/copier_deferred.o" -o "$work/thinlto"
check_run "ld.lld-22 ThinLTO --load-pass-plugin" "$work/thinlto"

# Absorption into write/send: a just-copied buffer written to a pipe (and
# writev, send) through the plugin and the real libcopier carries the bytes
# of the plain build, the remark names the absorbing entry point, and the
# kernel read the pending copies' sources (COPIER_STATS; spawn=0 keeps the
# copies pending until a wait).
absorb=testsuite/ir/absorb_write_pipe.c
lib=$root/target/release
[ -f "$lib/libcopier.so" ] || cargo build --release --locked -p copier
clang-22 -O2 "$absorb" -o "$work/absorb.plain"
clang-22 -O2 -g -fpass-plugin="$plugin" -Rpass=copiergen "$absorb" -o "$work/absorb.cg" -L"$lib" -lcopier -Wl,-rpath,"$lib" 2>"$work/absorb.remarks"
for call in write writev send; do
  grep -q "call to '$call' at .* rewritten to copier_$call instead of a csync" "$work/absorb.remarks" ||
    { cat "$work/absorb.remarks"; echo "30-pass: absorb: no remark for $call" >&2; exit 1; }
done
want=$("$work/absorb.plain")
for opts in "" "spawn=0" "absorb=0:spawn=0"; do
  got=$(COPIER_STATS=1 COPIER_OPTIONS="$opts" "$work/absorb.cg" 2>"$work/absorb.err")
  [ "$got" = "$want" ] || { echo "30-pass: absorb [$opts]: output '$got' differs from plain '$want'" >&2; exit 1; }
  bytes=$(grep -o 'absorbed_syscall_bytes=[0-9]*' "$work/absorb.err" | cut -d= -f2)
  if [ "$opts" != "" ] && [ "${bytes:-0}" -eq 0 ]; then echo "30-pass: absorb [$opts]: nothing absorbed: $(cat "$work/absorb.err")" >&2; exit 1; fi
  echo "30-pass: absorb [$opts]: same bytes as plain clang, absorbed_syscall_bytes=${bytes:-?}"
done

# Lazy copies chosen by the pass: a copy whose buffer only goes to write
# or send and is then freed (or leaves the frame) is submitted lazy, the
# kernel reads its source, and it is dropped at the end: the plain build's
# bytes, the LazyCopy remark, lazy_dropped > 0 and bytes absorbed; with no
# service thread (spawn=0) none of those copies ever runs (only the 8
# copies of the buffer read after its write count in tasks).
lazy=testsuite/ir/lazy_write_pipe.c
clang-22 -O2 "$lazy" -o "$work/lazy.plain"
clang-22 -O2 -g -fpass-plugin="$plugin" -Rpass=copiergen "$lazy" -o "$work/lazy.cg" -L"$lib" -lcopier -Wl,-rpath,"$lib" 2>"$work/lazy.remarks"
[ "$(grep -c 'copy submitted with amemcpy_lazy' "$work/lazy.remarks")" = 2 ] ||
  { cat "$work/lazy.remarks"; echo "30-pass: lazy: not 2 LazyCopy remarks" >&2; exit 1; }
want=$("$work/lazy.plain")
for opts in "" "spawn=0" "absorb=0:spawn=0" "lazy_window_us=0"; do
  got=$(COPIER_STATS=1 COPIER_OPTIONS="$opts" "$work/lazy.cg" 2>"$work/lazy.err")
  [ "$got" = "$want" ] || { echo "30-pass: lazy [$opts]: output differs from plain" >&2; exit 1; }
  line=$(tail -n1 "$work/lazy.err")
  [[ "$line" =~ tasks=([0-9]+).*absorbed_syscall_bytes=([0-9]+)\ lazy_dropped=([0-9]+) ]] ||
    { echo "30-pass: lazy [$opts]: no stats line: $line" >&2; exit 1; }
  tasks=${BASH_REMATCH[1]} bytes=${BASH_REMATCH[2]} dropped=${BASH_REMATCH[3]}
  case "$opts" in
    lazy_window_us=0) ok=1 ;; # (lazy copies may run at once)
    *spawn=0) [ "$tasks" = 8 ] && [ "$dropped" = 16 ] && [ "$bytes" -gt 0 ] && ok=1 || ok=0 ;;
    *) [ "$dropped" -gt 0 ] && [ "$bytes" -gt 0 ] && ok=1 || ok=0 ;;
  esac
  [ "$ok" = 1 ] || { echo "30-pass: lazy [$opts]: copies ran or nothing dropped: $line" >&2; exit 1; }
  echo "30-pass: lazy [$opts]: same bytes as plain clang, $line"
done

cp -r testsuite/hosts/rust_copy "$work/rust_copy"
(
  cd "$work/rust_copy"
  CARGO_TARGET_DIR="$work/rust_plain" cargo build --release --quiet --target x86_64-unknown-linux-gnu
  RUSTFLAGS="-C linker-plugin-lto -C linker=clang-22 -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--load-pass-plugin=$plugin -L native=$work -l static=copier_deferred" \
    CARGO_TARGET_DIR="$work/rust_plugin" cargo build --release --quiet --target x86_64-unknown-linux-gnu
)
expected=$("$work/rust_plain/x86_64-unknown-linux-gnu/release/rust_copy")
check_run "rustc 1.95 -C linker-plugin-lto" "$work/rust_plugin/x86_64-unknown-linux-gnu/release/rust_copy"
echo "30-pass: all CopierGen checks passed"
