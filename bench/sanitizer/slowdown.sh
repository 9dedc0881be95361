#!/usr/bin/env bash
# Cost of a CopierSanitizer build against the plain compiler, beside the
# cost of AddressSanitizer on the same programs: each workload is built three
# ways with the same flags,
#   plain  clang-22                         (no pass, no libcopier)
#   asan   clang-22 -fsanitize=address
#   san    copiergen cc --sanitize          (CopierGen, then the
#                                            instrumentation, libcopier_san.a)
# and run interleaved (plain, asan, san, plain, ...) in one invocation; the
# ratios are of medians. The spread is (max - min) / median of each variant.
# The issue 9 target: san/plain <= asan/plain on every line (the san/asan
# column at most 1).
#
#   bench/sanitizer/slowdown.sh [RUNS]      (default 11)
#   SAN_BEFORE=DIR bench/sanitizer/slowdown.sh [RUNS]
#
# BUILD_ONLY=1 builds and stops (run it under the shared machine lock);
# REUSE=1 runs the builds a previous invocation left (the timing part, under
# the exclusive lock); BUILD_VARIANTS="san ..." rebuilds only those.
# CPU=1 times each run by the CPU time of all its processes and threads
# (perf stat's task-clock, user + system, children included) instead of
# the wall clock, which other engineers' load on a shared machine moves
# more.
# The table goes to stdout, headed by the machine's load and CPU; OUT_FILE=F
# also writes it to F (committed runs live in bench/results/).
#
# SAN_BEFORE names another checkout built with `cargo build --release` (an
# older CopierSanitizer): its `copiergen cc --sanitize` is a fourth variant,
# "before", in the same interleaving, for before/after figures.
# SAN_PARTS=1 adds two variants that split the sanitizer build's cost:
# "cg" (`copiergen cc`, CopierGen's guards alone) and "inst" (`copiergen cc
# --sanitize` with COPIERGEN_OPTIONS=-copiergen-disable: the
# instrumentation alone). ONLY=NAME[,NAME] runs only those workloads.
#
# Workloads (the Debian source packages are built with the recipes of
# testsuite/thirdparty/run.sh, from the sources it fetches; the generated
# YAML and XML documents are bench/programs/lib/inputs.sh's):
#   zlib-minigzip  minigzip -6 compressing the first 4 MiB of LLVM 22's shared
#                  library, then minigzip -d of the result
#   lz4            lz4 -1 then lz4 -d of the first 32 MiB of that library
#   bzip2          bzip2 -9 then bzip2 -d of the same 4 MiB
#   protobuf-c-pack, protobuf-c-unpack
#                  bench/compiler/pbc_unpack.c with protobuf-c.c built the
#                  same way: 32 chunks of 4 KiB, 5000 rounds of pack/unpack
#   protobuf-c-unpack256
#                  16 chunks of 256 KiB, 40 rounds of unpack
#   expat          expat's tests/benchmark on the 16 MiB XML document, 4 KiB
#                  buffers, 2 loops (libexpat static, Debian's flags)
#   libyaml-parser, libyaml-loader
#                  libyaml's run-parser / run-loader on the 8 MiB YAML
#                  document (static libyaml, Debian's flags)
#   copy_parse     examples/copy_parse.c on /var/lib/dpkg/status (20 rounds;
#                  its plain and asan builds link libcopier but run memcpy)
#   capi_parse     examples/capi_parse.c (hand-written amemcpy and
#                  csync_ready_end windows) on the same file (10 rounds;
#                  plain and asan link libcopier)
# Prints one line per workload:
#   sanitizer-slowdown NAME plain=Xms asan=Xms san=Xms asan/plain=R san/plain=R spread=P%/A%/S% range=MIN..MAX/MIN..MAX/MIN..MAX
# Needs libclang-rt-22-dev (scripts/deps.sh) for the ASan runtime.
set -euo pipefail
. "$(dirname "$0")/../../testsuite/lib/common.sh"
need_built
RUNS=${1:-11}
OUT="$COPIER_ROOT/testsuite/out/bench-sanitizer"
SRC="$COPIER_ROOT/third_party/build/src"
mkdir -p "$OUT"
VARIANTS=(plain asan san)
[ -z "${SAN_BEFORE:-}" ] || VARIANTS+=(before)
[ "${SAN_PARTS:-0}" = 0 ] || VARIANTS+=(cg inst)
WORKLOADS=(zlib-minigzip lz4 bzip2 protobuf-c-pack protobuf-c-unpack protobuf-c-unpack256 expat libyaml-parser libyaml-loader copy_parse capi_parse)
[ -z "${ONLY:-}" ] || IFS=, read -ra WORKLOADS <<<"$ONLY"
LIBS=(-lpthread -ldl -lm -lrt -lutil)
# LeakSanitizer is not part of the comparison (CopierSanitizer checks no leaks).
export ASAN_OPTIONS=detect_leaks=0

# cc_of VARIANT: the compiler command of a variant.
cc_of() {
  case $1 in
    plain) echo clang-22 ;;
    asan) echo "clang-22 -fsanitize=address" ;;
    san) echo "$COPIERGEN cc --sanitize" ;;
    before) echo "$SAN_BEFORE/target/release/copiergen cc --sanitize" ;;
    cg) echo "$COPIERGEN cc" ;;
    inst) echo "env COPIERGEN_OPTIONS=-copiergen-disable $COPIERGEN cc --sanitize" ;;
  esac
}

# source PKG: the Debian source (fetched by run.sh, once).
source_of() {
  local dsc
  dsc=$(ls "$SRC/${1}"_*.dsc 2>/dev/null | head -1 || true)
  if [ -z "$dsc" ]; then
    bash "$COPIER_ROOT/testsuite/thirdparty/run.sh" "$1" --build-only >/dev/null
    dsc=$(ls "$SRC/${1}"_*.dsc | head -1)
  fi
  echo "$dsc"
}

# cmake_cc VARIANT: "COMPILER EXTRA_FLAGS" for CMake, which wants one
# executable per compiler (copiergen-cc reads --sanitize from COPIERGEN_FLAGS).
cmake_cc() {
  case $1 in
    plain) echo "$(command -v clang-22) " ;;
    asan) echo "$(command -v clang-22) -fsanitize=address" ;;
    san) echo "$COPIER_ROOT/target/release/copiergen-cc " ;;
    before) echo "$SAN_BEFORE/target/release/copiergen-cc " ;;
    cg) echo "$COPIER_ROOT/target/release/copiergen-cc " ;;
    inst) echo "$COPIER_ROOT/target/release/copiergen-cc " ;;
  esac
}
cmake_env() { # cmake_env VARIANT: the environment of a CMake build of VARIANT
  case $1 in
    san | before) echo "COPIERGEN_FLAGS=--sanitize" ;;
    inst) echo "COPIERGEN_FLAGS=--sanitize COPIERGEN_OPTIONS=-copiergen-disable" ;;
    *) echo "COPIERGEN_FLAGS=" ;;
  esac
}

# build PKG VARIANT: a fresh tree in $OUT/PKG-VARIANT, built as run.sh does.
build() {
  local pkg=$1 v=$2 cc tree log ccc extra
  cc=$(cc_of "$v")
  read -r ccc extra <<<"$(cmake_cc "$v")"
  extra=${extra:-}
  tree="$OUT/$pkg-$v"
  log="$OUT/$pkg-$v.build.log"
  rm -rf "$tree"
  dpkg-source --no-check -q -x "$(source_of "$pkg")" "$tree" >/dev/null
  local deb_cflags deb_cppflags deb_ldflags
  deb_cflags="$(dpkg-buildflags --get CFLAGS)"
  deb_cppflags="$(dpkg-buildflags --get CPPFLAGS)"
  deb_ldflags="$(dpkg-buildflags --get LDFLAGS)"
  (
    cd "$tree"
    case $pkg in
      zlib)
        CC="$cc" CFLAGS="-O2 -g" ./configure && make -j2 minigzip ;;
      lz4)
        CFLAGS="$deb_cflags" CPPFLAGS="$deb_cppflags" LDFLAGS="$deb_ldflags" make -j2 CC="$cc" lib lz4 ;;
      bzip2)
        make -j2 CC="$cc" CFLAGS="$deb_cflags $deb_cppflags -D_FILE_OFFSET_BITS=64" LDFLAGS="$deb_ldflags" bzip2 ;;
      protobuf-c)
        # Only the C library and the benchmark; protoc-gen-c is Debian's.
        protoc --c_out=. -I"$COPIER_ROOT/bench/compiler" "$COPIER_ROOT/bench/compiler/bigmsg.proto"
        $cc -O2 -g -I. "$COPIER_ROOT/bench/compiler/pbc_unpack.c" bigmsg.pb-c.c protobuf-c/protobuf-c.c -o pbc_unpack ;;
      expat)
        sed -i 's/^#cmakedefine XML_DTD$/#cmakedefine XML_DTD 1/' expat/expat_config.h.cmake
        env $(cmake_env "$v") CFLAGS="$deb_cflags $deb_cppflags $extra" LDFLAGS="$deb_ldflags $extra" \
          cmake -S expat -B _build -DCMAKE_C_COMPILER="$ccc" -DCMAKE_BUILD_TYPE=None -DEXPAT_SHARED_LIBS=OFF \
          -DEXPAT_BUILD_DOCS=OFF -DEXPAT_BUILD_TESTS=OFF -DEXPAT_BUILD_TOOLS=OFF -DEXPAT_BUILD_EXAMPLES=OFF
        env $(cmake_env "$v") cmake --build _build -j2
        $cc $deb_cflags $deb_cppflags -Iexpat/lib expat/tests/benchmark/benchmark.c _build/libexpat.a $deb_ldflags -o expat_benchmark ;;
      libyaml)
        env $(cmake_env "$v") CFLAGS="$deb_cflags $deb_cppflags $extra" LDFLAGS="$deb_ldflags $extra" \
          cmake -S . -B _build -DCMAKE_C_COMPILER="$ccc" -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=ON
        env $(cmake_env "$v") cmake --build _build -j2 --target run-parser run-loader ;;
    esac
  ) >"$log" 2>&1 || { echo "slowdown: building $pkg ($v) failed; see ${log#"$COPIER_ROOT"/}" >&2; tail -20 "$log" >&2; exit 1; }
}

pkg_of() { # pkg_of WORKLOAD: the package whose build it runs
  case $1 in
    protobuf-c*) echo protobuf-c ;;
    *) echo "${1%%-*}" ;;
  esac
}
need() { # need PKG: whether a chosen workload uses PKG's build
  local w
  for w in "${WORKLOADS[@]}"; do [ "$(pkg_of "$w")" = "$1" ] && return 0; done
  return 1
}
for v in "${VARIANTS[@]}"; do
  [ "${REUSE:-0}" = 0 ] || break
  case " ${BUILD_VARIANTS:-$v} " in *" $v "*) ;; *) continue ;; esac
  for p in zlib lz4 bzip2 protobuf-c expat libyaml; do
    if need "$p"; then build "$p" "$v"; fi
  done
  for ex in copy_parse capi_parse; do
    if [ "$v" != plain ] && [ "$v" != asan ]; then
      $(cc_of "$v") -O2 -g "$COPIER_ROOT/examples/$ex.c" -o "$OUT/$ex-$v"
    else
      # shellcheck disable=SC2046
      $(cc_of "$v") -O2 -g -I"$COPIER_ROOT/runtime/include" "$COPIER_ROOT/examples/$ex.c" \
        "$COPIER_ROOT/target/release/libcopier.a" "${LIBS[@]}" -o "$OUT/$ex-$v"
    fi
  done
done
[ "${BUILD_ONLY:-0}" = 0 ] || exit 0
LIB=$(ls "$LLVM_PREFIX"/lib/libLLVM*.so* | head -1)
head -c $((4 << 20)) "$LIB" >"$OUT/input4.bin"
head -c $((32 << 20)) "$LIB" >"$OUT/input32.bin"
# shellcheck source=../programs/lib/inputs.sh
. "$COPIER_ROOT/bench/programs/lib/inputs.sh"
make_inputs

now() { date +%s%N; }

# cmd WORKLOAD VARIANT: the shell command of one run.
cmd() {
  local t="$OUT" v=$2
  case $1 in
    zlib-minigzip) echo "'$t/zlib-$v/minigzip' -6 <'$t/input4.bin' | '$t/zlib-$v/minigzip' -d" ;;
    lz4) echo "'$t/lz4-$v/lz4' -1 -c <'$t/input32.bin' | '$t/lz4-$v/lz4' -d -c" ;;
    bzip2) echo "'$t/bzip2-$v/bzip2' -9 -c <'$t/input4.bin' | '$t/bzip2-$v/bzip2' -d -c" ;;
    protobuf-c-pack) echo "'$t/protobuf-c-$v/pbc_unpack' 32 4096 5000 pack" ;;
    protobuf-c-unpack) echo "'$t/protobuf-c-$v/pbc_unpack' 32 4096 5000 unpack" ;;
    protobuf-c-unpack256) echo "'$t/protobuf-c-$v/pbc_unpack' 16 262144 40 unpack" ;;
    expat) echo "'$t/expat-$v/expat_benchmark' '$XML' 4096 2" ;;
    libyaml-parser) echo "'$t/libyaml-$v/_build/run-parser' '$YAML' | grep -q ': SUCCESS'" ;;
    libyaml-loader) echo "'$t/libyaml-$v/_build/run-loader' '$YAML' | grep -q ': SUCCESS (1 documents)'" ;;
    copy_parse) echo "'$t/copy_parse-$v' /var/lib/dpkg/status 20" ;;
    capi_parse) echo "'$t/capi_parse-$v' /var/lib/dpkg/status 10" ;;
  esac
}

# stats US...: "median spread% min max" of the microsecond times.
stats() {
  printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {m=v[int((NR+1)/2)]; printf "%d %.0f %d %d\n", m, 100*(v[NR]-v[1])/m, v[1], v[NR]}'
}

# run_us CMD: runs CMD, prints its time in microseconds (wall, or CPU with CPU=1).
run_us() {
  local t0 t1
  if [ "${CPU:-0}" = 1 ]; then
    perf stat -x, -e task-clock -o "$OUT/stat.txt" bash -c "$1" >/dev/null 2>&1
    awk -F, '$3 ~ /^task-clock/ { printf "%d", $1 * 1000 }' "$OUT/stat.txt"
  else
    t0=$(now); bash -c "$1" >/dev/null 2>&1; t1=$(now)
    echo $(((t1 - t0) / 1000))
  fi
}

# measure WORKLOAD: interleaved runs of the three builds, checked output.
measure() {
  local w=$1 i v t0 t1 c
  local -A times=()
  for v in "${VARIANTS[@]}"; do
    c=$(cmd "$w" "$v")
    # Each build must run clean (a CopierSanitizer report exits non-zero).
    bash -c "set -o pipefail; $c" >/dev/null 2>"$OUT/$w-$v.err" || {
      echo "slowdown: $w ($v) failed; see ${OUT#"$COPIER_ROOT"/}/$w-$v.err" >&2
      exit 1
    }
  done
  for ((i = 0; i < RUNS; i++)); do
    for v in "${VARIANTS[@]}"; do
      c=$(cmd "$w" "$v")
      times[$v]+="$(run_us "$c") "
    done
  done
  local -a p a s
  local line
  # shellcheck disable=SC2086
  read -ra p <<<"$(stats ${times[plain]})"
  # shellcheck disable=SC2086
  read -ra a <<<"$(stats ${times[asan]})"
  # shellcheck disable=SC2086
  read -ra s <<<"$(stats ${times[san]})"
  line=$(awk -v n="$w" -v p="${p[0]}" -v a="${a[0]}" -v s="${s[0]}" -v sp="${p[1]}" -v sa="${a[1]}" -v ss="${s[1]}" \
    -v r="${p[2]}..${p[3]}/${a[2]}..${a[3]}/${s[2]}..${s[3]}" \
    'BEGIN { printf "sanitizer-slowdown %-20s plain=%.1fms asan=%.1fms san=%.1fms asan/plain=%.2f san/plain=%.2f san/asan=%.2f spread=%d%%/%d%%/%d%% range(us)=%s", n, p/1000, a/1000, s/1000, a/p, s/p, s/a, sp, sa, ss, r }')
  local -a o
  for v in "${VARIANTS[@]:3}"; do
    # shellcheck disable=SC2086
    read -ra o <<<"$(stats ${times[$v]})"
    line+=$(awk -v v="$v" -v p="${p[0]}" -v o="${o[0]}" -v so="${o[1]}" -v r="${o[2]}..${o[3]}" 'BEGIN { printf " %s=%.1fms %s/plain=%.2f spread=%d%% range(us)=%s", v, o/1000, v, o/p, so, r }')
  done
  local kind=wall
  [ "${CPU:-0}" = 1 ] && kind=cpu
  echo "$line (medians of $RUNS interleaved runs, $kind time)"
}

{
  echo "# bench/sanitizer/slowdown.sh $RUNS on $(date -u +%FT%TZ), commit $(git -C "$COPIER_ROOT" rev-parse --short HEAD)"
  echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for w in "${WORKLOADS[@]}"; do
    measure "$w"
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/table.txt"
[ -z "${OUT_FILE:-}" ] || cp "$OUT/table.txt" "$OUT_FILE"
