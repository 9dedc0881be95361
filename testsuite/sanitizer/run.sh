#!/usr/bin/env bash
# CopierSanitizer's test suite.
#
#   testsuite/sanitizer/run.sh
#
# 1. Seeded bugs (seeded/*.c: hand-written amemcpy/csync code, built with
#    `copiergen cc --sanitize -mllvm -copiergen-disable`, i.e. instrumented
#    but not rewritten, or with REWRITE: copiergen also rewritten; cg/*.c: CopierGen's own output with its csync calls
#    deleted from the IR, then instrumented with opt -passes=copier-sanitizer).
#    Each must exit non-zero (or as EXPECT-EXIT says) with exactly one report
#    (or EXPECT-REPORTS), whose first line is
#      ERROR: CopierSanitizer: <kind> on address 0x… (N bytes) in thread T<n>
#    and whose SUMMARY names <kind> and the file:line of the comment
#    "BUG: <kind>" in the source.
# 2. Correct programs must run with zero reports: ok/*.c, ok/*.cc (hand-written, and
#    again with CopierGen rewriting them), cg/*.c unmodified, and the
#    CopierGen test programs (testsuite/e2e/c, testsuite/e2e/cpp,
#    examples/*.c) built with `copiergen cc --sanitize`.
#
# Directives in a program's leading comments:
#   RUN-ENV: VAR=value      environment of the run
#   EXPECT-EXIT: N          exit status (default 1 for seeded programs)
#   EXPECT-REPORTS: N       number of reports (default 1)
#   EXPECT-THREAD: nonzero  the access is on a thread other than T0
#   TIMEOUT: N              seconds a run may take (default 120 for seeded
#                           programs, 300 for correct ones): a hang fails
#   EXPECT-STDOUT: text     the program's stdout contains text
#   EXPECT-STDERR: text     a line of the reports contains text (repeatable:
#                           each on the line of the one before or later)
#   OPT-LEVELS: -O0 -O2     build and check at each level (default -O1 -O2:
#                           the optimizer merges and moves accesses, and the
#                           report must still name the right line)
#   CHECKED-BY: interceptor the bug is caught by an interceptor (runs even
#                           if the plugin has no copier-sanitizer pass)
#   REWRITE: copiergen      a seeded program is built with CopierGen
#                           rewriting its copies (the program's own bug must
#                           be reported whatever CopierGen made of the copy)
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

SAN="$COPIER_ROOT/testsuite/sanitizer"
OUT="$COPIER_ROOT/testsuite/out/sanitizer"
PLUGIN=${COPIERGEN_PLUGIN:-$COPIER_ROOT/target/release/libcopiergen.so}
LIBSAN="$COPIER_ROOT/target/release/libcopier_san.a"
LIBS=(-lpthread -ldl -lm -lrt -lutil)
rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
last_ok=0
failed=0
skipped=0

[ -f "$LIBSAN" ] || { echo "$LIBSAN is missing: run cargo build --release --locked first" >&2; exit 1; }

# Does the plugin provide the instrumentation pass?
have_pass=0
printf 'target triple = "x86_64-pc-linux-gnu"\ndefine void @f(ptr %%p) {\n  store i8 0, ptr %%p\n  ret void\n}\n' >"$OUT/probe.ll"
if opt-22 -load-pass-plugin="$PLUGIN" -passes=copier-sanitizer "$OUT/probe.ll" -S -o "$OUT/probe.out.ll" 2>/dev/null &&
  grep -q '__copier_san_store1' "$OUT/probe.out.ll"; then
  have_pass=1
else
  echo "sanitizer: the plugin has no copier-sanitizer pass yet: only interceptor checks run" >&2
fi

# prune_ok BIN: drops BIN's executable and IR once its check passed (the .out,
# .err and .build logs stay).
prune_ok() {
  [ "$last_ok" = 1 ] && prune "$1" "$1.ll" "$1.seeded.ll" "$1.bc"
  return 0
}

directive() { sed -n "s|^// $2: *||p" "$1" | head -1; }

ok() {
  passed=$((passed + 1))
  last_ok=1
  echo "sanitizer $1: ok${2:+, $2}"
}

bad() {
  failed=$((failed + 1))
  last_ok=0
  echo "sanitizer $1: FAILED: $2 $(low_disk_note "$OUT")"
  [ -f "${3:-}" ] && head -30 "$3" | sed 's/^/    /'
  return 0
}

# build_hand SRC BIN [extra copiergen args]: instrumented, not rewritten
# (unless SRC says REWRITE: copiergen).
build_hand() {
  local src=$1 bin=$2 driver=cc clang=clang-22 disable=(-mllvm -copiergen-disable)
  shift 2
  case $src in *.cc) driver=c++ clang=clang++-22 ;; esac
  [ "$(directive "$src" REWRITE)" = copiergen ] && disable=()
  if [ $have_pass = 1 ]; then
    "$COPIERGEN" "$driver" --sanitize -O1 -g "$@" "${disable[@]}" "$src" -o "$bin" -lpthread 2>"$bin.build"
  else
    "$clang" -O1 -g "$@" "$src" -o "$bin" "$LIBSAN" "${LIBS[@]}" 2>"$bin.build"
  fi
}

# build_cg_seeded SRC BIN: CopierGen's IR, csync calls deleted, instrumented.
build_cg_seeded() {
  local src=$1 bin=$2
  "$COPIERGEN" cc -O2 -g -S -emit-llvm "$src" -o "$bin.ll" 2>"$bin.build" || return 1
  if ! grep -q 'call void @__copier_csync(' "$bin.ll"; then
    echo "CopierGen placed no csync call (nothing to delete)" >>"$bin.build"
    return 1
  fi
  grep -v 'call void @__copier_csync(' "$bin.ll" >"$bin.seeded.ll"
  opt-22 -load-pass-plugin="$PLUGIN" -passes=copier-sanitizer "$bin.seeded.ll" -o "$bin.bc" 2>>"$bin.build" || return 1
  clang-22 -O1 -g "$bin.bc" -o "$bin" "$LIBSAN" "${LIBS[@]}" 2>>"$bin.build"
}

# stderr_lacks SRC ERR: fails, printing the first missing text, unless ERR
# contains every EXPECT-STDERR text of SRC, each on the line of the one
# before or a later one.
stderr_lacks() {
  sed -n 's|^// EXPECT-STDERR: *||p' "$1" | awk -v err="$2" '
    { want[++n] = $0 }
    END {
      i = 1
      while (i <= n && (getline line < err) > 0)
        while (i <= n && index(line, want[i])) i++
      if (i <= n) { print want[i]; exit 1 }
    }'
}

# check_seeded NAME SRC BIN
check_seeded() {
  local name=$1 src=$2 bin=$3
  local marker kind line env exit_want reports_want thread rc
  marker=$(grep -n 'BUG: ' "$src" | head -1)
  line=${marker%%:*}
  kind=$(sed -n 's|.*BUG: \([a-z-]*\).*|\1|p' <<<"$marker")
  env=$(directive "$src" RUN-ENV)
  exit_want=$(directive "$src" EXPECT-EXIT)
  reports_want=$(directive "$src" EXPECT-REPORTS)
  thread='0'
  [ "$(directive "$src" EXPECT-THREAD)" = nonzero ] && thread='[1-9][0-9]*'
  set +e
  env ${env:+"$env"} timeout "$(directive "$src" TIMEOUT | grep . || echo 120)" "$bin" >"$bin.out" 2>"$bin.err" </dev/null
  rc=$?
  set -e
  local n
  n=$(grep -c '^ERROR: CopierSanitizer: ' "$bin.err" || true)
  local first
  first=$(head -1 "$bin.err")
  if [ "$rc" != "${exit_want:-1}" ]; then
    bad "$name" "exit status $rc, expected ${exit_want:-1}" "$bin.err"
  elif [ "$n" != "${reports_want:-1}" ]; then
    bad "$name" "$n reports, expected ${reports_want:-1}" "$bin.err"
  elif ! grep -Eq "^ERROR: CopierSanitizer: $kind on address 0x[0-9a-f]+ \([0-9]+ bytes\) in thread T$thread\$" <<<"$first"; then
    bad "$name" "first line is not a $kind report in thread T$thread: $first" "$bin.err"
  elif ! grep -Eq "^SUMMARY: CopierSanitizer: $kind .*/$(basename "$src"):$line in " "$bin.err"; then
    bad "$name" "no SUMMARY naming $kind at $(basename "$src"):$line" "$bin.err"
  elif ! grep -q "submitted by thread T" "$bin.err"; then
    bad "$name" "the report lacks the copy's stack" "$bin.err"
  elif [ -n "$(directive "$src" EXPECT-STDOUT)" ] && ! grep -qF "$(directive "$src" EXPECT-STDOUT)" "$bin.out"; then
    bad "$name" "stdout lacks '$(directive "$src" EXPECT-STDOUT)'" "$bin.out"
  elif ! missing=$(stderr_lacks "$src" "$bin.err"); then
    bad "$name" "the reports lack, in order: $missing" "$bin.err"
  else
    ok "$name" "$kind at line $line"
  fi
}

# check_clean NAME BIN [ARGS...]: runs with zero reports and exit 0 (within
# $clean_timeout seconds, default 300).
check_clean() {
  local name=$1 bin=$2
  shift 2
  local rc
  set +e
  timeout "${clean_timeout:-300}" "$bin" "$@" >"$bin.out" 2>"$bin.err" </dev/null
  rc=$?
  set -e
  if grep -q 'CopierSanitizer' "$bin.err"; then
    bad "$name" "unexpected report" "$bin.err"
  elif [ $rc = 124 ]; then
    bad "$name" "timed out after ${clean_timeout:-300} s" "$bin.err"
  elif [ $rc != 0 ]; then
    bad "$name" "exit status $rc" "$bin.err"
  else
    ok "$name" "no report"
  fi
}

# --- 1. seeded bugs ------------------------------------------------------------
for src in "$SAN"/seeded/*.c "$SAN"/seeded/*.cc; do
  n=seeded-$(basename "${src%.cc}" .c)
  if [ $have_pass = 0 ] && [ "$(directive "$src" CHECKED-BY)" != interceptor ]; then
    skipped=$((skipped + 1))
    continue
  fi
  levels=$(directive "$src" OPT-LEVELS)
  for opt in ${levels:--O1 -O2}; do
    nl=$n$opt
    if build_hand "$src" "$OUT/$nl" "$opt"; then
      check_seeded "$nl" "$src" "$OUT/$nl"
      prune_ok "$OUT/$nl"
    else
      bad "$nl" "build failed" "$OUT/$nl.build"
    fi
  done
done
if [ $have_pass = 1 ]; then
  for src in "$SAN"/cg/*.c; do
    n=cg-seeded-$(basename "$src" .c)
    if build_cg_seeded "$src" "$OUT/$n"; then
      check_seeded "$n" "$src" "$OUT/$n"
      prune_ok "$OUT/$n"
    else
      bad "$n" "build failed" "$OUT/$n.build"
    fi
  done
fi

# --- 2. correct programs: zero reports -------------------------------------------
for src in "$SAN"/ok/*.c "$SAN"/ok/*.cc; do
  n=ok-$(basename "${src%.cc}" .c)
  clean_timeout=$(directive "$src" TIMEOUT)
  if build_hand "$src" "$OUT/$n"; then check_clean "$n" "$OUT/$n" && prune_ok "$OUT/$n"; else bad "$n" "build failed" "$OUT/$n.build"; fi
done
clean_timeout=
if [ $have_pass = 1 ]; then
  # The same programs with CopierGen rewriting their memcpy calls too.
  for src in "$SAN"/ok/*.c "$SAN"/ok/*.cc "$SAN"/cg/*.c; do
    n=cgbuild-$(basename "${src%.cc}" .c)
    driver=cc
    case $src in *.cc) driver=c++ ;; esac
    clean_timeout=$(directive "$src" TIMEOUT)
    if "$COPIERGEN" "$driver" --sanitize -O2 -g "$src" -o "$OUT/$n" -lpthread 2>"$OUT/$n.build"; then
      check_clean "$n" "$OUT/$n"
      prune_ok "$OUT/$n"
    else
      bad "$n" "build failed" "$OUT/$n.build"
    fi
  done
  clean_timeout=
  shopt -s nullglob
  for src in "$COPIER_ROOT"/testsuite/e2e/c/*.c "$COPIER_ROOT"/examples/*.c; do
    n=prog-$(basename "$src" .c)
    for opt in -O0 -O2; do
      if "$COPIERGEN" cc --sanitize "$opt" -g -pthread "$src" -o "$OUT/$n$opt" 2>"$OUT/$n$opt.build"; then
        case $n in
          prog-copy_parse) check_clean "$n$opt" "$OUT/$n$opt" /var/lib/dpkg/status 2 ;;
          *) check_clean "$n$opt" "$OUT/$n$opt" ;;
        esac
        prune_ok "$OUT/$n$opt"
      else
        bad "$n$opt" "build failed" "$OUT/$n$opt.build"
      fi
    done
  done
  for src in "$COPIER_ROOT"/testsuite/e2e/cpp/*.cc; do
    n=prog-$(basename "$src" .cc)
    for opt in -O0 -O2; do
      if "$COPIERGEN" c++ --sanitize "$opt" -g "$src" -o "$OUT/$n$opt" 2>"$OUT/$n$opt.build"; then
        check_clean "$n$opt" "$OUT/$n$opt"
        prune_ok "$OUT/$n$opt"
      else
        bad "$n$opt" "build failed" "$OUT/$n$opt.build"
      fi
    done
  done
fi

# --- 3. shadow mapped before shared libraries' constructors ------------------------
# dso/ctor_lib.c's constructor calls the executable's instrumented
# exe_callback before the executable's constructors run: the runtime maps
# the shadow from .preinit_array. The library plain and instrumented; the
# executable prints 42, and still reports a read of a pending destination.
if [ $have_pass = 1 ]; then
  for lib in plain san; do
    n=dso-ctor-$lib
    d="$OUT/$n.d"
    mkdir -p "$d"
    if [ $lib = plain ]; then
      clang-22 -O1 -g -fPIC -shared "$SAN/dso/ctor_lib.c" -o "$d/libctor.so" 2>"$OUT/$n.build"
    else
      "$COPIERGEN" cc --sanitize -O1 -g -fPIC -shared "$SAN/dso/ctor_lib.c" -o "$d/libctor.so" 2>"$OUT/$n.build"
    fi &&
      "$COPIERGEN" cc --sanitize -O1 -g "$SAN/dso/ctor_main.c" -L"$d" -lctor -Wl,-rpath,"$d" -o "$OUT/$n" 2>>"$OUT/$n.build" ||
      { bad "$n" "build failed" "$OUT/$n.build"; continue; }
    check_clean "$n" "$OUT/$n"
    if [ "$(cat "$OUT/$n.out")" != 42 ]; then
      bad "$n-output" "printed '$(head -c 200 "$OUT/$n.out")', expected 42" "$OUT/$n.err"
    else
      ok "$n-output" "42"
    fi
    set +e
    "$OUT/$n" copy >"$OUT/$n.copy.out" 2>"$OUT/$n.copy.err" </dev/null
    rc=$?
    set -e
    if [ $rc = 1 ] && grep -Eq "^SUMMARY: CopierSanitizer: read-before-csync .*/ctor_main.c:$(grep -n 'BUG: ' "$SAN/dso/ctor_main.c" | cut -d: -f1) in main" "$OUT/$n.copy.err"; then
      ok "$n-report" "read-before-csync still reported"
    else
      bad "$n-report" "exit $rc" "$OUT/$n.copy.err"
    fi
  done
fi

# --- 4. flags ----------------------------------------------------------------------
n=flags-unknown
if build_hand "$SAN/ok/basic.c" "$OUT/$n"; then
  set +e
  COPIER_OPTIONS=halt_on_eror=0 "$OUT/$n" >/dev/null 2>"$OUT/$n.err"
  rc=$?
  set -e
  # Reported and ignored, like the plain runtime's unknown options.
  # Once: the runtime's own parser leaves names unknown to both to it.
  if [ $rc = 0 ] && grep -q "WARNING: CopierSanitizer: unknown flag 'halt_on_eror'" "$OUT/$n.err" &&
    [ "$(grep -c "halt_on_eror" "$OUT/$n.err")" = 1 ]; then ok "$n" "warned once, ran on"; else bad "$n" "exit $rc" "$OUT/$n.err"; fi
  n3=flags-bad-runtime-value
  set +e
  COPIER_OPTIONS=queue_depth=1 "$OUT/$n" >/dev/null 2>"$OUT/$n3.err"
  rc=$?
  set -e
  # A runtime option's bad value is the runtime's to report, in this build too.
  if [ $rc = 0 ] && grep -q "bad value '1' for option 'queue_depth'" "$OUT/$n3.err"; then ok "$n3" "runtime reported it"; else bad "$n3" "exit $rc" "$OUT/$n3.err"; fi
  n2=flags-bad-value
  set +e
  COPIER_OPTIONS=halt_on_error=abc "$OUT/$n" >/dev/null 2>"$OUT/$n2.err"
  rc=$?
  set -e
  if [ $rc = 0 ] && grep -q "WARNING: CopierSanitizer: bad value 'abc' for flag 'halt_on_error'" "$OUT/$n2.err"; then ok "$n2" "warned, ran on"; else bad "$n2" "exit $rc" "$OUT/$n2.err"; fi
fi

# A --sanitize executable with a shared object built without --sanitize:
# the object carries its own hidden libcopier, which the sanitizer's hooks
# do not reach; it finds the sanitizer by the symbol the executable exports
# and leaves it the unknown name (trial finding: warned twice).
n=flags-unknown-hidden-runtime
if [ $have_pass = 1 ]; then
  printf '#include <string.h>\nchar la[1 << 16], lb[1 << 16];\nint lib_copy(void) { memcpy(lb, la, sizeof la); return lb[3]; }\n' >"$OUT/$n.lib.c"
  printf '#include <stdio.h>\nint lib_copy(void);\nint main(void) { printf("%%d\\n", lib_copy()); return 0; }\n' >"$OUT/$n.c"
  if "$COPIERGEN" cc -O1 -shared -fPIC "$OUT/$n.lib.c" -o "$OUT/lib$n.so" 2>"$OUT/$n.build" &&
    "$COPIERGEN" cc --sanitize -O1 -g "$OUT/$n.c" -L"$OUT" -l"$n" -Wl,-rpath,"$OUT" -o "$OUT/$n" 2>>"$OUT/$n.build"; then
    set +e
    COPIER_OPTIONS=halt_on_eror=0 "$OUT/$n" >/dev/null 2>"$OUT/$n.err"
    rc=$?
    set -e
    if [ $rc = 0 ] && [ "$(grep -c "halt_on_eror" "$OUT/$n.err")" = 1 ]; then ok "$n" "warned once"; else bad "$n" "exit $rc" "$OUT/$n.err"; fi
  else
    bad "$n" "build failed" "$OUT/$n.build"
  fi
fi

# symbolize=0: no sanitizer or runtime frame in either stack (frame #0 is
# the user's code in the executable) and every frame is (module+0xoffset),
# which llvm-symbolizer turns back into the BUG line offline (ASLR-proof).
n=flags-symbolize-0
if [ $have_pass = 1 ] && build_hand "$SAN/seeded/read_dst.c" "$OUT/$n"; then
  set +e
  COPIER_OPTIONS=symbolize=0 "$OUT/$n" >/dev/null 2>"$OUT/$n.err"
  set -e
  bug=$(grep -n 'BUG: ' "$SAN/seeded/read_dst.c" | cut -d: -f1)
  frame0=$(grep -m1 -E '^    #0 ' "$OUT/$n.err" || true)
  copy0=$(sed -n '/submitted by thread T0 here:/{n;p;q}' "$OUT/$n.err")
  off=$(sed -n "s|.*(.*/$n+\(0x[0-9a-f]*\))\$|\1|p" <<<"$frame0")
  sym=""
  [ -n "$off" ] && sym=$(llvm-symbolizer-22 --obj="$OUT/$n" "$(printf '%#x' $((off - 1)))" 2>/dev/null | sed -n 2p)
  if ! grep -Eq "^    #0 0x[0-9a-f]+  \(.*/$n\+0x[0-9a-f]+\)\$" <<<"$frame0"; then
    bad "$n" "access frame #0 is not the program's (module+offset): $frame0" "$OUT/$n.err"
  elif ! grep -Eq "^    #0 0x[0-9a-f]+  \(.*/$n\+0x[0-9a-f]+\)\$" <<<"$copy0"; then
    bad "$n" "copy frame #0 is not the program's (module+offset): $copy0" "$OUT/$n.err"
  elif [[ "$sym" != *"read_dst.c:$bug:"* ]]; then
    bad "$n" "llvm-symbolizer maps frame #0 to '$sym', expected read_dst.c:$bug" "$OUT/$n.err"
  elif grep -q ' in <unknown>$' "$OUT/$n.err" || ! grep -Eq "^SUMMARY: CopierSanitizer: read-before-csync \(.*/$n\+0x[0-9a-f]+\)" "$OUT/$n.err"; then
    bad "$n" "a frame or the SUMMARY lacks its module+offset" "$OUT/$n.err"
  else
    ok "$n" "frames start at the program, symbolized offline to read_dst.c:$bug"
  fi
fi

# --sanitize with a sanitizer that shares its shadow or malloc: one-line
# usage error (exit 2) at build time, no binary.
for s in address memory thread leak; do
  n=flags-fsanitize-$s
  set +e
  "$COPIERGEN" cc --sanitize -fsanitize=$s -O1 "$SAN/ok/basic.c" -o "$OUT/$n" >/dev/null 2>"$OUT/$n.err"
  rc=$?
  set -e
  if [ $rc = 2 ] && [ "$(wc -l <"$OUT/$n.err")" = 1 ] && grep -q -- "--sanitize cannot be combined with -fsanitize=$s" "$OUT/$n.err" && [ ! -e "$OUT/$n" ]; then
    ok "$n" "rejected at build time"
  else
    bad "$n" "exit $rc" "$OUT/$n.err"
  fi
done

echo "sanitizer: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
