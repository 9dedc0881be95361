#!/usr/bin/env bash
# Build a Debian source package with `copiergen cc` and run its own test suite.
#
#   testsuite/thirdparty/run.sh zlib|protobuf-c|redis [--no-rewrite] [--sanitize] [--build-only]
#
# Adds a deb-src line (idempotent), installs the build dependencies it needs
# (idempotent apt-get), fetches the package with `apt-get source` into
# third_party/build/src (once), extracts a fresh tree into
# third_party/build/<pkg>[-norewrite], builds it with CC="copiergen cc" (and
# CXX="copiergen c++"), and runs:
#   zlib        make test, then a minigzip round trip of dpkg's status file
#   protobuf-c  make check
#   redis       ./runtest on unit/type/{string,list,hash,set} and unit/dump
# It then prints one line:
#   thirdparty <pkg>: PASS rewritten=<n> csyncs=<n> missed=<n> processes=<n> async_tasks=<n> inline=<n> async_bytes=<n> build=<s>s test=<s>s
# (rewritten/csyncs/missed from the pass's remarks at build time; the rest
# summed over the COPIER_STATS=1 exit lines of the test processes) and writes it
# to third_party/build/results/<pkg>.txt.
#
# --no-rewrite builds the same way without the pass (copiergen cc
# --copier-no-rewrite): a baseline. --build-only skips the suite.
# JOBS (default: nproc) sets make's parallelism.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

pkg=${1:?usage: run.sh zlib|protobuf-c|redis [--no-rewrite] [--build-only]}
shift
rewrite=1
sanitize=0
run_suite=1
for a in "$@"; do
  case $a in
    --no-rewrite) rewrite=0 ;;
    --sanitize) sanitize=1 ;;
    --build-only) run_suite=0 ;;
    *) echo "run.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
JOBS=${JOBS:-$(nproc)}
need_built

case $pkg in
  zlib) build_deps=() ;;
  protobuf-c) build_deps=(libprotobuf-dev libprotoc-dev protobuf-compiler pkg-config) ;;
  redis) build_deps=(libjemalloc-dev tcl procps pkg-config) ;;
  *) echo "run.sh: unknown package $pkg (zlib, protobuf-c, redis)" >&2; exit 2 ;;
esac

# --- deb-src and build dependencies (idempotent) -----------------------------
DEB_SRC=/etc/apt/sources.list.d/copier-deb-src.sources
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
apt_get() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if ! apt-cache showsrc "$pkg" 2>/dev/null | grep -q '^Package:'; then
  if [ ! -f "$DEB_SRC" ]; then
    # deb822, like the image's debian.sources; bookworm main only.
    printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' \
      'Suites: bookworm bookworm-updates' 'Components: main' \
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' | $SUDO tee "$DEB_SRC" >/dev/null
  fi
  apt_get update -qq
fi
missing=()
for p in dpkg-dev "${build_deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || apt_get install -y -qq --no-install-recommends "${missing[@]}"

# --- source ------------------------------------------------------------------
BUILD="$COPIER_ROOT/third_party/build"
mkdir -p "$BUILD/src" "$BUILD/results"
dsc=$(ls "$BUILD/src/${pkg}"_*.dsc 2>/dev/null | head -1 || true)
if [ -z "$dsc" ]; then
  (cd "$BUILD/src" && apt-get source --download-only -qq "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  dsc=$(ls "$BUILD/src/${pkg}"_*.dsc | head -1)
fi
suffix=""
[ $rewrite = 1 ] || suffix=-norewrite
[ $sanitize = 0 ] || suffix=$suffix-san
tree="$BUILD/$pkg$suffix"
rm -rf "$tree"
# apt-get verified the files against the signed Release; skip the .dsc signature.
dpkg-source --no-check -q -x "$dsc" "$tree" >/dev/null
logs="$BUILD/logs/$pkg$suffix"
rm -rf "$logs"
mkdir -p "$logs"

copier_flags="--copier-remarks"
[ $rewrite = 1 ] || copier_flags="--copier-no-rewrite"
# --sanitize: instrumented for CopierSanitizer, linked with libcopier_san.a;
# any report fails the run (its exit status, and the grep after the suite).
[ $sanitize = 0 ] || copier_flags="$copier_flags --sanitize"
export COPIERGEN_FLAGS="$copier_flags ${COPIERGEN_EXTRA_FLAGS:-}"
CC="$COPIERGEN cc"
CXX="$COPIERGEN c++"
echo "thirdparty $pkg: building in ${tree#"$COPIER_ROOT"/} with CC=\"copiergen cc\" COPIERGEN_FLAGS=\"$COPIERGEN_FLAGS\"" >&2

build_start=$(date +%s)
cd "$tree"
case $pkg in
  zlib)
    CC="$CC" CFLAGS="-O2 -g" ./configure >"$logs/configure.log" 2>&1
    make -j"$JOBS" >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
    ;;
  protobuf-c)
    ./configure CC="$CC" CXX="$CXX" CFLAGS="-O2 -g" CXXFLAGS="-O2 -g" >"$logs/configure.log" 2>&1 ||
      { tail -30 "$logs/configure.log"; exit 1; }
    make -j"$JOBS" >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
    # make check also compiles the test programs: keep their remarks too.
    ;;
  redis)
    # As Debian builds it (system jemalloc), without TLS and systemd.
    make -j"$JOBS" V=1 CC="$CC" CXX="$CXX" USE_SYSTEM_JEMALLOC=yes USE_JEMALLOC=yes \
      OPTIMIZATION=-O2 >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
    ;;
esac
build_s=$(( $(date +%s) - build_start ))

test_s=0
if [ $run_suite = 1 ]; then
  test_start=$(date +%s)
  # Every process linked with libcopier prints its counters to stderr at exit.
  export COPIER_STATS=1
  case $pkg in
    zlib)
      make test >"$logs/test.log" 2>&1 || { tail -40 "$logs/test.log"; exit 1; }
      grep -q '\*\*\* zlib test OK \*\*\*' "$logs/test.log"
      grep -q '\*\*\* zlib shared test OK \*\*\*' "$logs/test.log"
      # A real-data round trip on top: dpkg's status file through minigzip
      # (static and shared builds) and back.
      for mg in minigzip minigzipsh; do
        LD_LIBRARY_PATH=. "./$mg" </var/lib/dpkg/status 2>>"$logs/test.log" >"$logs/status.gz"
        LD_LIBRARY_PATH=. "./$mg" -d <"$logs/status.gz" 2>>"$logs/test.log" | cmp - /var/lib/dpkg/status
        echo "$mg: round trip of /var/lib/dpkg/status OK" >>"$logs/test.log"
      done
      ;;
    protobuf-c)
      make -j"$JOBS" check >"$logs/test.log" 2>&1 || { cat test-suite.log 2>/dev/null | tail -40; tail -40 "$logs/test.log"; exit 1; }
      grep -E '^# (TOTAL|PASS|FAIL|ERROR)' "$logs/test.log" | tr '\n' ' ' >&2; echo >&2
      grep -q '^# FAIL: *0' "$logs/test.log" && grep -q '^# ERROR: *0' "$logs/test.log"
      # The automake harness keeps each test's stderr in its own .log.
      find t -name '*.log' -exec cat {} + >"$logs/test-programs.log" 2>/dev/null || true
      ;;
    redis)
      units=(unit/type/string unit/type/list unit/type/hash unit/type/set unit/dump)
      singles=()
      for u in "${units[@]}"; do singles+=(--single "$u"); done
      # Two clients for two cores; the suite's own timeouts stay in force.
      ./runtest --clients 2 --timeout 1200 --dont-clean "${singles[@]}" >"$logs/test.log" 2>&1 ||
        { grep -E '\[(err|exception)\]|FAILED|Killing' "$logs/test.log" | head -40; tail -20 "$logs/test.log"; exit 1; }
      grep -q 'All tests passed without errors!' "$logs/test.log"
      # redis-server's stderr goes to the suite's per-server logs.
      find tests/tmp -name 'stderr' -exec cat {} + >"$logs/server-stderr.log" 2>/dev/null || true
      ;;
  esac
  test_s=$(( $(date +%s) - test_start ))
fi

if [ $sanitize = 1 ] && cat "$logs"/*.log 2>/dev/null | grep -a -m5 'CopierSanitizer'; then
  echo "thirdparty $pkg$suffix: CopierSanitizer reported (see $logs)" >&2
  exit 1
fi
read -r rewritten csyncs missed < <(count_remarks "$logs"/build.log "$logs"/test.log)
read -r procs tasks inline bytes < <(sum_copier_stats "$logs"/test.log "$logs"/test-programs.log "$logs"/server-stderr.log)
mode=PASS
[ $run_suite = 1 ] || mode=BUILT
line="thirdparty $pkg$suffix: $mode rewritten=$rewritten csyncs=$csyncs missed=$missed processes=$procs async_tasks=$tasks inline=$inline async_bytes=$bytes build=${build_s}s test=${test_s}s"
echo "$line" | tee "$BUILD/results/$pkg$suffix.txt"
