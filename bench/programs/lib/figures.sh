# Sourced by bench/programs/run.sh: one prog_<name> per program (builds
# both ways, then `measure`s its figures) and the runners they measure.
# README.md beside run.sh describes every figure. Needs OUT and PAIRS, and
# lib/build.sh, lib/programs.sh and lib/inputs.sh, lib/measure.sh.
. "$(dirname "${BASH_SOURCE[0]}")/measure.sh"
. "$(dirname "${BASH_SOURCE[0]}")/inputs.sh"
. "$(dirname "${BASH_SOURCE[0]}")/paper.sh"

# both PROGRAM DEBIAN_PACKAGE: builds the package both ways; on a failure
# adds a row and returns 1.
both() {
  local m
  for m in plain copiergen; do
    if ! bench_build "$2" $m; then
      failed_row "$1" "(build)" "$m build failed: ${BENCH_BUILD_ERROR:-see the log above}"
      return 1
    fi
  done
}

# cmp_outputs PROGRAM WHAT FILE_A FILE_B: a row when two builds' outputs differ.
same_output() {
  cmp -s "$3" "$4" && return 0
  failed_row "$1" "$2" "plain and copiergen outputs differ"
  return 1
}

# ---- zlib ----------------------------------------------------------------------
run_zlib() {
  local t
  t=$(bench_tree zlib "$1")
  elapsed 1 "$IN16" /dev/null "$t/minigzip" -6
  elapsed 5 "$IN16.gz" /dev/null "$t/minigzip" -d
}
prog_zlib() {
  both zlib zlib || return 0
  "$(bench_tree zlib plain)/minigzip" -6 <"$IN16" >"$IN16.gz"
  "$(bench_tree zlib copiergen)/minigzip" -d <"$IN16.gz" >"$OUT/zlib-rt" || true
  same_output zlib "round trip" "$IN16" "$OUT/zlib-rt" || return 0
  measure zlib run_zlib "minigzip -6, 16 MiB|s|time" "minigzip -d, 16 MiB|s|time"
}

# ---- lz4, zstd: their own -b benchmark ------------------------------------------
# bench_mbs: the compression and decompression MB/s of the last result line
# of `lz4 -b` / `zstd -b` (" 1#file : 16777216 -> 6859302 (2.446), 410.2 MB/s , 2510.3 MB/s").
bench_mbs() {
  tr '\r' '\n' | grep -aE 'MB/s.*MB/s' | tail -1 | grep -oE '[0-9.]+ MB/s' | awk '{ print $1 }'
}
# bench_levels EXE LEVEL...: `EXE -bLEVEL -i1 IN16` per level (lz4 and zstd
# share the -b interface): the compression and decompression MB/s of each.
bench_levels() {
  local exe=$1 level
  shift
  for level in "$@"; do
    "$exe" -b"$level" -i1 "$IN16" 2>&1 | bench_mbs
  done
}
run_lz4() { bench_levels "$(bench_tree lz4 "$1")/lz4" 1 9; }
run_zstd() { bench_levels "$(bench_tree libzstd "$1")/programs/zstd" 1 3; }
# prog_bench_b PROGRAM DEBIAN_PACKAGE LEVEL LEVEL: both builds, then the
# four figures of run_PROGRAM.
prog_bench_b() {
  both "$1" "$2" || return 0
  measure "$1" "run_$1" "-b$3 compress|MB/s|rate" "-b$3 decompress|MB/s|rate" \
    "-b$4 compress|MB/s|rate" "-b$4 decompress|MB/s|rate"
}
prog_lz4() { prog_bench_b lz4 lz4 1 9; }
prog_zstd() { prog_bench_b zstd libzstd 1 3; }

# ---- brotli, xz, bzip2: compress and decompress a fixed file ----------------------
run_brotli() {
  local t
  t=$(bench_tree brotli "$1")
  elapsed 1 /dev/null /dev/null "$t/_build/brotli" -q 5 -c "$IN4"
  elapsed 1 /dev/null /dev/null "$t/_build/brotli" -q 9 -c "$IN1"
  elapsed 5 /dev/null /dev/null "$t/_build/brotli" -d -c "$IN16.br"
}
prog_brotli() {
  both brotli brotli || return 0
  "$(bench_tree brotli plain)/_build/brotli" -q 5 -c "$IN16" >"$IN16.br"
  "$(bench_tree brotli copiergen)/_build/brotli" -d -c "$IN16.br" >"$OUT/brotli-rt" || true
  same_output brotli "round trip" "$IN16" "$OUT/brotli-rt" || return 0
  measure brotli run_brotli "-q 5, 4 MiB|s|time" "-q 9, 1 MiB|s|time" "-d, 16 MiB|s|time"
}
xz_exe() { # xz_exe MODE ARGS...: the tree's xz with its own liblzma
  local t
  t=$(bench_tree xz-utils "$1")
  shift
  LD_LIBRARY_PATH="$t/src/liblzma/.libs" "$t/src/xz/.libs/xz" "$@"
}
run_xz() {
  elapsed 1 /dev/null /dev/null xz_exe "$1" -6 -T1 -c "$IN1"
  elapsed 5 /dev/null /dev/null xz_exe "$1" -d -c "$IN4.xz"
}
prog_xz() {
  both xz xz-utils || return 0
  xz_exe plain -6 -T1 -c "$IN4" >"$IN4.xz"
  xz_exe copiergen -d -c "$IN4.xz" >"$OUT/xz-rt" || true
  same_output xz "round trip" "$IN4" "$OUT/xz-rt" || return 0
  measure xz run_xz "-6, 1 MiB|s|time" "-d, 4 MiB|s|time"
}
run_bzip2() {
  local t
  t=$(bench_tree bzip2 "$1")
  elapsed 1 /dev/null /dev/null "$t/bzip2" -9 -c "$IN4"
  elapsed 1 /dev/null /dev/null "$t/bzip2" -d -c "$IN4.bz2"
}
prog_bzip2() {
  both bzip2 bzip2 || return 0
  "$(bench_tree bzip2 plain)/bzip2" -9 -c "$IN4" >"$IN4.bz2"
  "$(bench_tree bzip2 copiergen)/bzip2" -d -c "$IN4.bz2" >"$OUT/bzip2-rt" || true
  same_output bzip2 "round trip" "$IN4" "$OUT/bzip2-rt" || return 0
  measure bzip2 run_bzip2 "-9, 4 MiB|s|time" "-d, 4 MiB|s|time"
}

# ---- protobuf-c ----------------------------------------------------------------
# pbc_us: pbc_unpack's ns_per_round, in microseconds.
pbc_us() { sed -n 's/^ns_per_round=\([0-9]*\).*/\1/p' | awk '{ printf "%.3f\n", $1 / 1000 }'; }
run_pbc() {
  local exe="$OUT/pbc_unpack.$1"
  "$exe" 32 4096 20000 pack | pbc_us
  "$exe" 32 4096 20000 unpack | pbc_us
  "$exe" 16 262144 100 unpack | pbc_us
}
prog_protobuf_c() {
  both protobuf-c protobuf-c || return 0
  local m exe
  for m in plain copiergen; do
    exe=$(pbc_program $m) || { failed_row protobuf-c "(build)" "pbc_unpack ($m) failed to build"; return 0; }
    cp "$exe" "$OUT/pbc_unpack.$m"
    "$exe" 32 4096 2 unpack | cut -d' ' -f2 >"$OUT/pbc-$m.sum"
  done
  same_output protobuf-c "checksum" "$OUT/pbc-plain.sum" "$OUT/pbc-copiergen.sum" || return 0
  measure protobuf-c run_pbc "pack 32 x 4 KiB|us|time" "unpack 32 x 4 KiB|us|time" "unpack 16 x 256 KiB|us|time"
}

# ---- Redis: the server of each build, one plain redis-benchmark client ----------
# redis_start MODE: that build's redis-server on 127.0.0.1 and a random port
# (REDIS_PORT, REDIS_PID), no persistence; redis_stop ends it (SIGTERM: it
# exits through exit(), so libcopier writes its statistics).
redis_start() {
  local t client i
  t=$(bench_tree redis "$1")
  client=$(bench_tree redis plain)/src
  REDIS_PID=""
  for i in 1 2 3 4 5; do
    REDIS_PORT=$((20000 + RANDOM % 20000))
    "$t/src/redis-server" --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
      --daemonize no --logfile "$OUT/redis-$1.log" &
    REDIS_PID=$!
    # Ready when it answers; a port already taken makes it exit.
    for _ in $(seq 1 100); do
      "$client/redis-cli" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break
      kill -0 "$REDIS_PID" 2>/dev/null || break
      sleep 0.1
    done
    "$client/redis-cli" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=""
  done
  echo "redis-server did not start (see $OUT/redis-$1.log)" >&2
  return 1
}
redis_stop() {
  kill "$REDIS_PID"
  wait "$REDIS_PID" 2>/dev/null || true
}
run_redis() {
  local client size n
  client=$(bench_tree redis plain)/src
  redis_start "$1" || return 1
  for size in 4096 65536 262144; do
    case $size in 4096) n=40000 ;; 65536) n=10000 ;; *) n=3000 ;; esac
    "$client/redis-benchmark" -h 127.0.0.1 -p "$REDIS_PORT" -c 8 -n "$n" -d "$size" -t set,get -q 2>/dev/null |
      tr '\r' '\n' | awk '/^(SET|GET): [0-9.]+ requests per second/ { print $2 }'
  done
  redis_stop
}
prog_redis() {
  both redis redis || return 0
  measure redis run_redis "SET 4 KiB, -c 8|req/s|rate" "GET 4 KiB, -c 8|req/s|rate" \
    "SET 64 KiB, -c 8|req/s|rate" "GET 64 KiB, -c 8|req/s|rate" \
    "SET 256 KiB, -c 8|req/s|rate" "GET 256 KiB, -c 8|req/s|rate"
}

# ---- sqlite3: speedtest1 -----------------------------------------------------------
run_sqlite3() {
  "$(bench_tree sqlite3 "$1")/speedtest1" --size 25 --memdb 2>&1 |
    awk '/TOTAL/ { sub(/s$/, "", $NF); print $NF }'
}
prog_sqlite3() {
  both sqlite3 sqlite3 || return 0
  local m
  for m in plain copiergen; do
    make -C "$(bench_tree sqlite3 $m)" speedtest1 >"$OUT/speedtest1-$m.log" 2>&1 ||
      { failed_row sqlite3 "(build)" "speedtest1 ($m) failed to build"; return 0; }
  done
  measure sqlite3 run_sqlite3 "speedtest1 --size 25 --memdb|s|time"
}

# ---- libpng: encode and decode loop --------------------------------------------
png_ms() { # png_loop's line: encode and decode ns per round, in ms
  tr ' ' '\n' | sed -n 's/^\(en\|de\)code_ns_per_round=\([0-9]*\)/\2/p' | awk '{ printf "%.3f\n", $1 / 1e6 }'
}
run_libpng() { "$OUT/png_loop.$1" 1024 1024 3 | png_ms; }
prog_libpng() {
  both libpng libpng1.6 || return 0
  local m t
  for m in plain copiergen; do
    t=$(bench_tree libpng1.6 $m)
    # shellcheck disable=SC2046 # bench_cc: "copiergen cc" is two words
    $(bench_cc $m) -O2 -g -I"$t" "$HERE/png_loop.c" "$t/.libs/libpng16.a" -lz -lm -o "$OUT/png_loop.$m" \
      >"$OUT/png_loop-$m.log" 2>&1 || { failed_row libpng "(build)" "png_loop ($m) failed to build"; return 0; }
    "$OUT/png_loop.$m" 256 256 1 | sed 's/.*png_bytes=//' >"$OUT/png-$m.sum"
  done
  same_output libpng "checksum" "$OUT/png-plain.sum" "$OUT/png-copiergen.sum" || return 0
  measure libpng run_libpng "encode 1024x1024 RGBA|ms|time" "decode 1024x1024 RGBA|ms|time"
}

# ---- libyaml: run-parser and run-loader on a generated document -----------------
run_libyaml() {
  local t
  t=$(bench_tree libyaml "$1")/_build
  elapsed 1 /dev/null /dev/null "$t/run-parser" "$YAML"
  elapsed 1 /dev/null /dev/null "$t/run-loader" "$YAML"
}
prog_libyaml() {
  both libyaml libyaml || return 0
  local m t
  for m in plain copiergen; do
    t=$(bench_tree libyaml $m)/_build
    # Both exit 0 on a parse error: check that they saw the whole document.
    "$t/run-parser" "$YAML" | grep -q ': SUCCESS' && "$t/run-loader" "$YAML" | grep -q ': SUCCESS (1 documents)' ||
      { failed_row libyaml "run-parser, run-loader" "$m build does not parse the document"; return 0; }
  done
  measure libyaml run_libyaml "run-parser, 8 MiB|s|time" "run-loader, 8 MiB|s|time"
}

# ---- expat: its tests/benchmark program on a generated document -----------------
expat_s() { sed -n 's/.*Average time per loop: \([0-9.]*\).*/\1/p'; }
run_expat() {
  "$OUT/expat_benchmark.$1" "$XML" 4096 5 | expat_s
  "$OUT/expat_benchmark.$1" -n "$XML" 65536 5 | expat_s
}
prog_expat() {
  both expat expat || return 0
  local m t
  for m in plain copiergen; do
    t=$(bench_tree expat $m)
    # shellcheck disable=SC2046
    $(bench_cc $m) -O2 -g -I"$t/expat/lib" "$t/expat/tests/benchmark/benchmark.c" -L"$t/_build" \
      -Wl,-rpath,"$t/_build" -lexpat -o "$OUT/expat_benchmark.$m" >"$OUT/expat_benchmark-$m.log" 2>&1 ||
      { failed_row expat "(build)" "tests/benchmark ($m) failed to build"; return 0; }
  done
  measure expat run_expat "benchmark, 16 MiB, 4 KiB buffers|s|time" "benchmark -n (namespaces), 64 KiB buffers|s|time"
}

# ---- examples: copy-then-parse ---------------------------------------------------
run_copy_parse() { elapsed 1 /dev/null /dev/null "$OUT/copy_parse.$1" "$STATUS" 40; }
prog_copy_parse() {
  local m
  for m in plain copiergen; do
    # shellcheck disable=SC2046
    $(bench_cc $m) -O2 -g "$COPIER_ROOT/examples/copy_parse.c" -o "$OUT/copy_parse.$m" ||
      { failed_row copy_parse "(build)" "$m build failed"; return 0; }
    "$OUT/copy_parse.$m" "$STATUS" 1 >"$OUT/copy_parse-$m.out"
  done
  same_output copy_parse "output" "$OUT/copy_parse-plain.out" "$OUT/copy_parse-copiergen.out" || return 0
  measure copy_parse run_copy_parse "examples/copy_parse.c, 40 rounds of dpkg status|s|time"
}

# ---- snappy (C++): its snappy_benchmark (Google Benchmark) --------------------------
# snappy_mbs NAME: bytes_per_second of benchmark NAME in --benchmark_format=csv, as MB/s.
snappy_mbs() {
  awk -F, -v n="\"$1\"" '$1 == n { printf "%.3f\n", $6 / 1e6 }'
}
run_snappy() {
  local t csv="$OUT/snappy-$1.csv"
  t=$(bench_tree snappy "$1")
  (cd "$t" && ./_build/snappy_benchmark --benchmark_filter='^BM_(ZFlatAll|UFlatMedley)$' \
    --benchmark_min_time=1 --benchmark_format=csv) >"$csv" 2>/dev/null
  snappy_mbs BM_ZFlatAll <"$csv"
  snappy_mbs BM_UFlatMedley <"$csv"
}
prog_snappy() {
  both snappy snappy || return 0
  measure snappy run_snappy "BM_ZFlatAll (compress testdata)|MB/s|rate" "BM_UFlatMedley (decompress testdata)|MB/s|rate"
}

# ---- Rust: lz4_flex and miniz_oxide through copiergen cargo ------------------------
rust_exe() { echo "$BENCH_BUILD_DIR/rust-$([ "$1" = plain ] && echo plain-)bench/x86_64-unknown-linux-gnu/release/rust_workload"; }
rust_ms() { sed -n 's/^ns_per_round=\([0-9]*\).*/\1/p' | awk '{ printf "%.3f\n", $1 / 1e6 }'; }
run_rust() {
  local exe
  exe=$(rust_exe "$1")
  "$exe" lz4-compress "$IN4" 20 | rust_ms
  "$exe" lz4-decompress "$IN4" 100 | rust_ms
  "$exe" deflate "$IN1" 2 | rust_ms
  "$exe" inflate "$IN4" 20 | rust_ms
}
prog_rust() {
  local src="$HERE/rust" m log
  log="$OUT/rust-build.log"
  # Same LTO link for both; the copiergen build adds the plugin and libcopier.
  (cd "$src" && RUSTFLAGS="-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=-fuse-ld=lld" \
    CARGO_TARGET_DIR="$BENCH_BUILD_DIR/rust-plain-bench" cargo build --release --locked --quiet \
    --target x86_64-unknown-linux-gnu) >"$log" 2>&1 || { tail -20 "$log" >&2; failed_row rust "(build)" "plain build failed"; return 0; }
  # cargo does not see a new plugin or runtime: a changed stamp starts over.
  local dir="$BENCH_BUILD_DIR/rust-bench" stamp
  stamp=$(bench_stamp rust copiergen)
  [ "$(cat "$dir/.bench-stamp" 2>/dev/null)" = "$stamp" ] || rm -rf "$dir"
  (cd "$src" && CARGO_TARGET_DIR="$dir" "$COPIERGEN" cargo build --release --locked --quiet) \
    >>"$log" 2>&1 || { tail -20 "$log" >&2; failed_row rust "(build)" "copiergen build failed"; return 0; }
  echo "$stamp" >"$dir/.bench-stamp"
  for m in plain copiergen; do "$(rust_exe $m)" lz4-decompress "$IN4" 1 | cut -d' ' -f2 >"$OUT/rust-$m.sum"; done
  same_output rust "checksum" "$OUT/rust-plain.sum" "$OUT/rust-copiergen.sum" || return 0
  measure rust run_rust "lz4_flex compress, 4 MiB|ms|time" "lz4_flex decompress, 4 MiB|ms|time" \
    "miniz_oxide deflate -6, 1 MiB|ms|time" "miniz_oxide inflate, 4 MiB|ms|time"
}
