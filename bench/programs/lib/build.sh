# Sourced by bench/programs/run.sh and bench/programs/callgrind-gate.sh: the
# two builds of a Debian source package that the benchmarks compare.
#
#   bench_tree PKG MODE     prints the tree's path (MODE: plain | copiergen)
#   bench_build PKG MODE    builds it if needed; 0 = built, 1 = failed
#                           (the reason in $BENCH_BUILD_ERROR)
#
# Both builds come from testsuite/thirdparty/run.sh --build-only --tag=bench
# (same Debian source, same flags: -O2 -g for zlib, protobuf-c and Redis,
# dpkg-buildflags for the rest): MODE plain adds --plain (clang-22, no
# libcopier), MODE copiergen uses `copiergen cc` with the pass's defaults.
# Their trees are third_party/build/<pkg>-plain-bench and <pkg>-bench, apart
# from the test suite's. A tree is rebuilt only when its stamp changes: the
# build script, the Debian source version and, for copiergen, the copiergen
# binaries, plugin and runtime (plus COPIERGEN_OPTIONS/COPIERGEN_EXTRA_FLAGS).
# BENCH_REBUILD=1 rebuilds anyway; BENCH_REUSE=1 uses any existing tree
# whatever its stamp (to time a run-time option on builds made earlier).
# shellcheck source=../../../testsuite/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../testsuite/lib/common.sh"
BENCH_BUILD_DIR="$COPIER_ROOT/third_party/build"

bench_tree() {
  case $2 in
    plain) echo "$BENCH_BUILD_DIR/$1-plain-bench" ;;
    copiergen) echo "$BENCH_BUILD_DIR/$1-bench" ;;
    *) echo "bench_tree: unknown mode $2 (plain | copiergen)" >&2; return 2 ;;
  esac
}

# bench_stamp PKG MODE: what a tree's build depends on, as one hash.
bench_stamp() {
  local pkg=$1 mode=$2 dsc
  dsc=$(cd "$BENCH_BUILD_DIR/src" 2>/dev/null && ls "${pkg}"_*.dsc 2>/dev/null | head -1 || true)
  {
    echo "$pkg $mode ${dsc:-unfetched}"
    sha256sum "$COPIER_ROOT/testsuite/thirdparty/run.sh" | cut -d' ' -f1
    if [ "$mode" = copiergen ]; then
      sha256sum "$COPIERGEN" "$COPIER_ROOT/target/release/libcopiergen.so" "$COPIER_ROOT/target/release/libcopier.a" | cut -d' ' -f1
      echo "${COPIERGEN_OPTIONS:-} ${COPIERGEN_EXTRA_FLAGS:-}"
    fi
  } | sha256sum | cut -d' ' -f1
}

BENCH_BUILD_ERROR=""
bench_build() {
  local pkg=$1 mode=$2 tree stamp log flags=(--build-only --tag=bench)
  tree=$(bench_tree "$pkg" "$mode") || return 2
  stamp=$(bench_stamp "$pkg" "$mode")
  if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -f "$tree/.bench-stamp" ] &&
    { [ "${BENCH_REUSE:-0}" = 1 ] || [ "$(cat "$tree/.bench-stamp")" = "$stamp" ]; }; then
    return 0
  fi
  [ "$mode" = copiergen ] || flags+=(--plain)
  log=$(mktemp)
  if bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" "$pkg" "${flags[@]}" >"$log" 2>&1; then
    # The stamp is taken again: the first build fetched the source.
    bench_stamp "$pkg" "$mode" >"$tree/.bench-stamp"
    rm -f "$log"
    return 0
  fi
  BENCH_BUILD_ERROR=$(grep -a 'FAIL (' "$log" | tail -1)
  [ -n "$BENCH_BUILD_ERROR" ] || BENCH_BUILD_ERROR=$(tail -1 "$log")
  echo "bench_build $pkg $mode failed:" >&2
  tail -20 "$log" >&2
  rm -f "$log"
  return 1
}
