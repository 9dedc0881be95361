#!/usr/bin/env bash
# End-to-end programs built with and without CopierGen must print the same
# output, and the CopierGen build must have sent its large copies to the
# copy service (COPIER_STATS=1: tasks > 0).
#
#   testsuite/e2e/run.sh
#
# Programs: testsuite/e2e/c/*.c, testsuite/e2e/cpp/*.cc,
# testsuite/e2e/profile/sizes.c (built with a size profile), testsuite/e2e/link/*.c
# (programs defining libcopier names; baseline plain clang-22), examples/copy_parse.c,
# examples/load_scan.c
# (on dpkg's status file), testsuite/e2e/names (a program defining
# libcopier's public names in another file; baseline plain clang-22), the Rust crate testsuite/e2e/rust (through
# `copiergen cargo`), and every testsuite/e2e/regressions/*.c (minimised
# differential-test failures; built with --copier-threshold=1 so every copy
# is rewritten, at -O0 and -O2, and with --sanitize at -O2). The baseline of each is the same build with
# --copier-no-rewrite (same flags, same libcopier, no pass).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
need_built

OUT="$COPIER_ROOT/testsuite/out/e2e"
rm -rf "$OUT"
mkdir -p "$OUT"
E2E="$COPIER_ROOT/testsuite/e2e"
passed=0
failed=0

# check NAME EXPECT_ASYNC BASE_BIN CG_BIN [ARGS...]: run both, compare stdout,
# and when EXPECT_ASYNC=1 require that the CopierGen build ran copies on the service.
check() {
  local name=$1 expect_async=$2 base=$3 cg=$4
  shift 4
  local ok=1 why=""
  COPIER_STATS=1 "$base" "$@" >"$OUT/$name.base.out" 2>"$OUT/$name.base.err" || { ok=0; why="baseline exited $?"; }
  COPIER_STATS=1 "$cg" "$@" >"$OUT/$name.cg.out" 2>"$OUT/$name.cg.err" || { ok=0; why="copiergen build exited $?"; }
  if [ $ok = 1 ] && ! cmp -s "$OUT/$name.base.out" "$OUT/$name.cg.out"; then
    ok=0
    why="outputs differ: $(diff "$OUT/$name.base.out" "$OUT/$name.cg.out" | head -4 | tr '\n' ' ')"
  fi
  local procs tasks inline bytes
  read -r procs tasks inline bytes < <(sum_copier_stats "$OUT/$name.cg.err")
  if [ $ok = 1 ] && [ "$expect_async" = 1 ] && [ "$procs" -eq 0 ]; then
    ok=0
    why="no COPIER_STATS line from the copiergen build (is libcopier linked?)"
  fi
  if [ $ok = 1 ] && [ "$expect_async" = 1 ] && [ "$tasks" -eq 0 ]; then
    ok=0
    why="no copy went asynchronous (COPIER_STATS: $(grep -ao 'copier: tasks=.*' "$OUT/$name.cg.err" | head -1))"
  fi
  if [ $ok = 1 ]; then
    passed=$((passed + 1))
    echo "e2e $name: ok, same output; async tasks=$tasks inline=$inline"
  else
    failed=$((failed + 1))
    echo "e2e $name: FAILED: $why"
    tail -5 "$OUT/$name.cg.err" | sed 's/^/    /'
  fi
}

# build_c NAME COMPILER FLAGS... -- SOURCES...: base and copiergen builds of NAME.
build() {
  local name=$1 driver=$2
  shift 2
  "$COPIERGEN" "$driver" --copier-no-rewrite "$@" -o "$OUT/$name.base" 2>"$OUT/$name.base.build"
  # (lld prints LTO remarks on stdout, clang on stderr)
  "$COPIERGEN" "$driver" --copier-remarks "$@" -o "$OUT/$name.cg" >"$OUT/$name.cg.build" 2>&1 ||
    { cat "$OUT/$name.cg.build"; return 1; }
  read -r rw cs ms < <(count_remarks "$OUT/$name.cg.build")
  echo "e2e $name: built; pass rewrote $rw copies, placed $cs csyncs, left $ms synchronous"
}

for src in "$E2E"/c/*.c; do
  n=$(basename "$src" .c)
  for opt in -O0 -O2; do
    build "c-$n$opt" cc "$opt" -g -Wall -pthread "$src"
    check "c-$n$opt" 1 "$OUT/c-$n$opt.base" "$OUT/c-$n$opt.cg"
  done
done
build "c-ringbuf-lto" cc -O2 -g -flto -pthread "$E2E/c/ringbuf.c"
check "c-ringbuf-lto" 1 "$OUT/c-ringbuf-lto.base" "$OUT/c-ringbuf-lto.cg"

for src in "$E2E"/cpp/*.cc; do
  n=$(basename "$src" .cc)
  for opt in -O0 -O2; do
    build "cpp-$n$opt" c++ "$opt" -g -Wall "$src"
    check "cpp-$n$opt" 1 "$OUT/cpp-$n$opt.base" "$OUT/cpp-$n$opt.cg"
  done
done

build example-copy_parse cc -O2 -Wall "$COPIER_ROOT/examples/copy_parse.c"
check example-copy_parse 1 "$OUT/example-copy_parse.base" "$OUT/example-copy_parse.cg" /var/lib/dpkg/status 2
build example-load_scan cc -O2 -Wall "$COPIER_ROOT/examples/load_scan.c"
check example-load_scan 1 "$OUT/example-load_scan.base" "$OUT/example-load_scan.cg" /var/lib/dpkg/status 2

# Size profiles: -fprofile-generate, run, llvm-profdata merge, then
# -fprofile-use. The profile keeps the short copy memcpy (its remark names
# the profile); the long copy still goes asynchronous.
prof="$OUT/profile"
mkdir -p "$prof"
"$COPIERGEN" cc -O2 -g -fprofile-generate="$prof/raw" "$E2E/profile/sizes.c" -o "$prof/gen"
"$prof/gen" >/dev/null
llvm-profdata-22 merge -o "$prof/sizes.profdata" "$prof"/raw/*.profraw
build profile-use cc -O2 -g -fprofile-use="$prof/sizes.profdata" "$E2E/profile/sizes.c"
check profile-use 1 "$OUT/profile-use.base" "$OUT/profile-use.cg"
short_remark="sizes.c:12:3: remark: llvm.memcpy of variable length stays synchronous: the size profile (-fprofile-use) has"
if ! grep -qF "$short_remark" "$OUT/profile-use.cg.build" || grep -q "sizes.c:12:3: remark: .*rewritten" "$OUT/profile-use.cg.build"; then
  failed=$((failed + 1))
  echo "e2e profile-use: FAILED: copy_short's copy was not kept memcpy by the profile"
  grep -a "sizes.c:12:3" "$OUT/profile-use.cg.build" | sed 's/^/    /'
elif ! grep -q "sizes.c:20:3: remark: llvm.memcpy of variable length rewritten to amemcpy" "$OUT/profile-use.cg.build"; then
  failed=$((failed + 1))
  echo "e2e profile-use: FAILED: copy_long's copy was not rewritten"
else
  echo "e2e profile-use: ok, the profile keeps the short copy memcpy"
fi
build profile-none cc -O2 -g "$E2E/profile/sizes.c"
if ! grep -q "sizes.c:12:3: remark: llvm.memcpy of variable length rewritten to amemcpy" "$OUT/profile-none.cg.build"; then
  failed=$((failed + 1))
  echo "e2e profile-none: FAILED: without a profile, copy_short's copy should be rewritten"
fi

# Programs that define libcopier names themselves (link/*.c): the baseline
# is plain clang-22 (--copier-no-rewrite links libcopier, which defines
# them too). A public name (csync, amemcpy: weak in libcopier) is the
# program's own: no warning, and the copy goes asynchronous. A reserved one
# (defines_reserved.c: __copier_csync) gets the pass's one warning, its
# copies stay synchronous and the program links and prints what clang's
# does. Also at -flto, in one line (the warning comes from the link-time
# pass) and as -c then a link of the object, which copiergen cc refuses
# for a reserved name (an error naming it). A module without copies
# (*_nocopy) has nothing to rewrite.
conflict_warning="the module defines '"
for src in "$E2E"/link/*.c; do
  n=$(basename "$src" .c)
  for mode in -O0 -O2 -flto -flto-objects; do
    name="link-$n$mode"
    case $mode in
      -flto*) opt=(-O2 -flto) ;;
      *) opt=("$mode") ;;
    esac
    clang-22 "${opt[0]}" -g "$src" -o "$OUT/$name.base" 2>"$OUT/$name.base.build"
    if [ "$mode" = -flto-objects ]; then
      cg_build() { "$COPIERGEN" cc "${opt[@]}" -g -c "$src" -o "$OUT/$name.o" && "$COPIERGEN" cc "${opt[@]}" "$OUT/$name.o" -o "$OUT/$name.cg"; }
    else
      cg_build() { "$COPIERGEN" cc "${opt[@]}" -g "$src" -o "$OUT/$name.cg"; }
    fi
    if [ "$n" = defines_reserved ] && [ "$mode" = -flto-objects ]; then
      if cg_build >"$OUT/$name.cg.build" 2>&1 || ! grep -q "defines '__copier_csync', a symbol reserved for libcopier" "$OUT/$name.cg.build"; then
        failed=$((failed + 1))
        echo "e2e $name: FAILED: want copiergen cc's error naming __copier_csync"
        sed 's/^/    /' "$OUT/$name.cg.build"
      else
        passed=$((passed + 1))
        echo "e2e $name: ok, refused: $(grep -o "defines '__copier_csync'.*" "$OUT/$name.cg.build" | cut -c1-80)"
      fi
      continue
    fi
    if ! cg_build >"$OUT/$name.cg.build" 2>&1; then
      failed=$((failed + 1))
      echo "e2e $name: FAILED: copiergen cc did not build it"
      tail -5 "$OUT/$name.cg.build" | sed 's/^/    /'
      continue
    fi
    warned=$(grep -c "$conflict_warning" "$OUT/$name.cg.build" || true)
    case $n in
      defines_reserved) want_warned=1 expect_async=0 ;;
      *_nocopy) want_warned=0 expect_async=0 ;;
      *) want_warned=0 expect_async=1 ;;
    esac
    if [ "$warned" != "$want_warned" ]; then
      failed=$((failed + 1))
      echo "e2e $name: FAILED: $warned conflict warnings (want $want_warned)"
      cat "$OUT/$name.cg.build" | sed 's/^/    /'
      continue
    fi
    check "$name" "$expect_async" "$OUT/$name.base" "$OUT/$name.cg"
  done
done

# A program that defines libcopier's public names itself in another file
# (names/own_csync.c: csync, csync_all, amemcpy): it links with the static
# runtime (libcopier's public names are weak), with --copier-shared and at
# -flto, its copies go asynchronous (the pass calls only __copier_*), and it
# prints what clang-22's build prints, also with spawn=0 (a copy runs only
# when libcopier's csync waits for it, so a pass wait that reached the
# program's csync would read unwritten bytes).
clang-22 -O2 "$E2E/names/own_csync.c" "$E2E/names/main.c" -o "$OUT/names.base"
for mode in static shared lto; do
  case $mode in
    static) flags=(-O2) ;;
    shared) flags=(--copier-shared -O2) ;;
    lto) flags=(-O2 -flto) ;;
  esac
  if ! "$COPIERGEN" cc "${flags[@]}" "$E2E/names/own_csync.c" "$E2E/names/main.c" -o "$OUT/names-$mode.cg" >"$OUT/names-$mode.cg.build" 2>&1; then
    failed=$((failed + 1))
    echo "e2e names-$mode: FAILED: copiergen cc did not build it"
    tail -5 "$OUT/names-$mode.cg.build" | sed 's/^/    /'
    continue
  fi
  check "names-$mode" 1 "$OUT/names.base" "$OUT/names-$mode.cg"
  COPIER_OPTIONS=spawn=0 check "names-$mode-spawn0" 1 "$OUT/names.base" "$OUT/names-$mode.cg"
done

# Rust: the crate builds twice, into separate target dirs.
for mode in base cg; do
  flag=--copier-remarks
  [ $mode = cg ] || flag=--copier-no-rewrite
  (cd "$E2E/rust" && CARGO_TARGET_DIR="$OUT/rust-$mode" "$COPIERGEN" cargo build --release --locked -q $flag) \
    >"$OUT/rust.$mode.build" 2>&1 || { cat "$OUT/rust.$mode.build"; exit 1; }
done
echo "e2e rust: built with copiergen cargo"
check rust 1 "$OUT/rust-base/x86_64-unknown-linux-gnu/release/copier-e2e-rust" \
  "$OUT/rust-cg/x86_64-unknown-linux-gnu/release/copier-e2e-rust"

# Regressions: every copy rewritten (threshold 1); async not required (many are small).
shopt -s nullglob
for src in "$E2E"/regressions/*.c; do
  n=$(basename "$src" .c)
  for opt in -O0 -O2; do
    flags=("$opt" -w -I/usr/include/csmith)
    "$COPIERGEN" cc --copier-no-rewrite "${flags[@]}" "$src" -o "$OUT/reg-$n$opt.base"
    "$COPIERGEN" cc --copier-threshold=1 "${flags[@]}" "$src" -o "$OUT/reg-$n$opt.cg"
    check "reg-$n$opt" 0 "$OUT/reg-$n$opt.base" "$OUT/reg-$n$opt.cg"
  done
  # CopierSanitizer build (-O2, the pipeline where a pass bug once crashed
  # clang): it must build and print what the plain build prints.
  "$COPIERGEN" cc --sanitize --copier-threshold=1 -O2 -w -I/usr/include/csmith "$src" -o "$OUT/reg-$n-san"
  check "reg-$n-san" 0 "$OUT/reg-$n-O2.base" "$OUT/reg-$n-san"
done

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
