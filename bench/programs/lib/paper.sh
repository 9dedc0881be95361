# Sourced by lib/figures.sh: the paper's workloads (issue "Faster where the
# paper is faster"), each against the same build without the pass.
#
#   prog_redis_latency    redis-benchmark -c 8 SET/GET average and p99
#                         latency, values 1 to 256 KiB (the paper's Figure 5)
#   prog_tinyproxy        TinyProxy forwarding 4 KiB to 1 MiB responses on
#                         loopback (http_origin.c, http_load.c)
#   prog_protobuf_c_big   protobuf-c unpacking 64 KiB to 1 MiB bytes fields
#   prog_zlib_deflate     zlib deflate of the 16 MiB input (zlib_deflate.c)
#
# Each also runs its copiergen build once more with COPIER_STATS=sites and a
# stats file, and writes `copiergen report` of it to $OUT/sites-<prog>.txt:
# where the copies are and how long their windows were (sites_of).

# sites_of PROGRAM RUNNER: one untimed copiergen run with per-site
# statistics; the report goes to $OUT/sites-PROGRAM.txt.
sites_of() {
  local f="$OUT/sites-$1.stats"
  rm -f "$f"
  COPIER_STATS=sites COPIER_STATS_FILE="$f" "$2" copiergen >/dev/null 2>"$OUT/sites-$1.err" || true
  if [ -s "$f" ]; then
    "$COPIERGEN" report "$f" >"$OUT/sites-$1.txt" 2>&1 || true
  else
    echo "(no copier: lines written)" >"$OUT/sites-$1.txt"
  fi
}

# ---- Redis: average and p99 latency --------------------------------------------
REDIS_LAT_SIZES="1024 4096 16384 65536 262144"
# redis_requests SIZE: requests per size (about a second each on 2 cores).
redis_requests() {
  case $1 in 1024 | 4096 | 16384) echo 20000 ;; 65536) echo 10000 ;; *) echo 3000 ;; esac
}
run_redis_latency() {
  local client size
  client=$(bench_tree redis plain)/src
  redis_start "$1" || return 1
  # --csv: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
  # "p95_latency_ms","p99_latency_ms","max_latency_ms"
  for size in $REDIS_LAT_SIZES; do
    "$client/redis-benchmark" -h 127.0.0.1 -p "$REDIS_PORT" -c 8 -n "$(redis_requests "$size")" -d "$size" \
      -t set,get --csv 2>/dev/null | tr -d '"' | awk -F, '$1 == "SET" || $1 == "GET" { print $3; print $7 }'
  done
  redis_stop
}
prog_redis_latency() {
  both redis-latency redis || return 0
  local specs=() size op
  for size in $REDIS_LAT_SIZES; do
    for op in SET GET; do
      specs+=("$op $((size / 1024)) KiB avg latency, -c 8|ms|time" "$op $((size / 1024)) KiB p99 latency, -c 8|ms|time")
    done
  done
  measure redis-latency run_redis_latency "${specs[@]}"
  sites_of redis-latency run_redis_latency
}

# ---- TinyProxy: HTTP forwarding on loopback --------------------------------------
TINYPROXY_SIZES="4096 16384 65536 262144 1048576"
TINYPROXY_SECONDS=2
TINYPROXY_CONNS=8
# tinyproxy_start MODE: that build's tinyproxy in the foreground on a random
# 127.0.0.1 port (TP_PORT, TP_PID), forwarding to the origin (ORIGIN_PORT).
tinyproxy_start() {
  local t i
  t=$(bench_tree tinyproxy "$1")
  for i in 1 2 3 4 5; do
    TP_PORT=$((20000 + RANDOM % 20000))
    printf '%s\n' "Port $TP_PORT" "Listen 127.0.0.1" "Timeout 60" "MaxClients 256" \
      "LogLevel Critical" "Logfile \"$OUT/tinyproxy-$1.log\"" "DisableViaHeader Yes" >"$OUT/tinyproxy-$1.conf"
    "$t/src/tinyproxy" -d -c "$OUT/tinyproxy-$1.conf" 2>>"$OUT/tinyproxy-$1.err" &
    TP_PID=$!
    # Ready when a request through it succeeds; a taken port makes it exit.
    for _ in $(seq 1 50); do
      "$OUT/http_load" "$TP_PORT" "$ORIGIN_PORT" 16 1 1 >/dev/null 2>&1 && return 0
      kill -0 "$TP_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill "$TP_PID" 2>/dev/null || true
    wait "$TP_PID" 2>/dev/null || true
  done
  echo "tinyproxy ($1) did not start (see $OUT/tinyproxy-$1.err)" >&2
  return 1
}
run_tinyproxy() {
  local size
  tinyproxy_start "$1" || return 1
  for size in $TINYPROXY_SIZES; do
    "$OUT/http_load" "$TP_PORT" "$ORIGIN_PORT" "$size" "$TINYPROXY_SECONDS" "$TINYPROXY_CONNS" 2>>"$OUT/tinyproxy-load.log" ||
      { kill "$TP_PID"; wait "$TP_PID" 2>/dev/null; return 1; }
  done
  # SIGTERM: tinyproxy exits through exit(), so libcopier writes its line.
  kill "$TP_PID"
  wait "$TP_PID" 2>/dev/null || true
}
prog_tinyproxy() {
  both tinyproxy tinyproxy || return 0
  local p
  for p in http_origin http_load; do
    clang-22 -O2 -g -pthread "$HERE/$p.c" -o "$OUT/$p" >"$OUT/$p.log" 2>&1 ||
      { failed_row tinyproxy "(build)" "$p.c failed to build"; return 0; }
  done
  "$OUT/http_origin" >"$OUT/origin.port" 2>"$OUT/origin.err" &
  ORIGIN_PID=$!
  for _ in $(seq 1 50); do [ -s "$OUT/origin.port" ] && break; sleep 0.1; done
  ORIGIN_PORT=$(head -1 "$OUT/origin.port")
  [ -n "$ORIGIN_PORT" ] || { failed_row tinyproxy "(origin)" "http_origin did not start"; return 0; }
  # The client's ceiling: straight to the origin, with its CPU use
  # (bench/programs/README.md: the client must not be the bottleneck).
  local size specs=()
  for size in $TINYPROXY_SIZES; do
    "$OUT/http_load" 0 "$ORIGIN_PORT" "$size" 1 "$TINYPROXY_CONNS" 2>>"$OUT/tinyproxy-direct.log" |
      awk -v s="$size" '{ printf "direct %d: %s MB/s\n", s, $1 }' >>"$OUT/tinyproxy-direct.txt"
    specs+=("forward $((size / 1024)) KiB, -c $TINYPROXY_CONNS|MB/s|rate")
  done
  measure tinyproxy run_tinyproxy "${specs[@]}"
  sites_of tinyproxy run_tinyproxy
  kill "$ORIGIN_PID"
  wait "$ORIGIN_PID" 2>/dev/null || true
}

# ---- protobuf-c: unpacking large bytes fields ----------------------------------
run_pbc_big() {
  local exe="$OUT/pbc_unpack.$1"
  "$exe" 64 65536 300 unpack | pbc_us
  "$exe" 16 262144 300 unpack | pbc_us
  "$exe" 4 1048576 300 unpack | pbc_us
}
prog_protobuf_c_big() {
  both protobuf-c-big protobuf-c || return 0
  local m exe
  for m in plain copiergen; do
    exe=$(pbc_program $m) || { failed_row protobuf-c-big "(build)" "pbc_unpack ($m) failed to build"; return 0; }
    cp "$exe" "$OUT/pbc_unpack.$m"
    "$exe" 16 262144 2 unpack | cut -d' ' -f2 >"$OUT/pbc-big-$m.sum"
  done
  same_output protobuf-c-big "checksum" "$OUT/pbc-big-plain.sum" "$OUT/pbc-big-copiergen.sum" || return 0
  measure protobuf-c-big run_pbc_big "unpack 64 x 64 KiB|us|time" "unpack 16 x 256 KiB|us|time" "unpack 4 x 1 MiB|us|time"
  sites_of protobuf-c-big run_pbc_big
}

# ---- zlib: deflate of 16 MiB in memory --------------------------------------------
zd_ms() { sed -n 's/^ns_per_round=\([0-9]*\).*/\1/p' | awk '{ printf "%.3f\n", $1 / 1e6 }'; }
run_zlib_deflate() {
  "$OUT/zlib_deflate.$1" "$IN16" 1 1 | zd_ms
  "$OUT/zlib_deflate.$1" "$IN16" 6 1 | zd_ms
}
prog_zlib_deflate() {
  both zlib-deflate zlib || return 0
  local m t
  for m in plain copiergen; do
    t=$(bench_tree zlib $m)
    # shellcheck disable=SC2046 # bench_cc: "copiergen cc" is two words
    $(bench_cc $m) -O2 -g -I"$t" "$HERE/zlib_deflate.c" "$t/libz.a" -o "$OUT/zlib_deflate.$m" \
      >"$OUT/zlib_deflate-$m.log" 2>&1 || { failed_row zlib-deflate "(build)" "zlib_deflate ($m) failed to build"; return 0; }
    "$OUT/zlib_deflate.$m" "$IN1" 6 1 | sed 's/^ns_per_round=[0-9]* //' >"$OUT/zd-$m.sum"
  done
  same_output zlib-deflate "output" "$OUT/zd-plain.sum" "$OUT/zd-copiergen.sum" || return 0
  measure zlib-deflate run_zlib_deflate "deflate -1, 16 MiB|ms|time" "deflate -6, 16 MiB|ms|time"
  sites_of zlib-deflate run_zlib_deflate
}
