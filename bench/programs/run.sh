#!/usr/bin/env bash
# Real programs, built with plain clang-22 and with copiergen, each running
# its own benchmark (or a fixed workload) in interleaved A/B pairs.
#
#   bench/programs/run.sh [--pairs N] [--only PROG,PROG] [--out FILE]
#                         [--variant COPIER_OPTIONS]...
#
# PROG: zlib lz4 zstd brotli xz bzip2 protobuf-c redis sqlite3 libpng
# libyaml expat copy_parse snappy rust, and the paper's workloads
# redis-latency tinyproxy protobuf-c-big zlib-deflate (`paper` names these
# four; default: all; README.md beside this file says what every figure is). Each package is built twice from one
# Debian source tree (lib/build.sh: same flags, plain clang-22 and
# `copiergen cc`/`c++` with the pass's defaults; unchanged builds are
# reused). Each figure then runs N times per build (default 5), plain and
# copiergen alternating (ABBAAB...). Prints a table (program, figure, the
# median of each build, the median of the N pair ratios, their min..max)
# with machine load and CPU model, and writes it to FILE (default
# bench/results/programs-<UTC date>.txt). A ratio above 1 means copiergen is
# faster: plain/copiergen for times, copiergen/plain for rates. Each
# --variant OPTS adds one more run to every round: the copiergen build with
# COPIER_OPTIONS=OPTS, in rows of its own. A build that
# fails becomes a row saying so. Not part of scripts/test.sh: 5 to 15
# minutes at 5 pairs on 2 cores once the builds exist, depending on load,
# plus about 8 for the paper's four (the first run also builds 32 trees,
# up to 40 minutes more).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/build.sh"
. "$HERE/lib/programs.sh"
need_built

PAPER=(redis-latency tinyproxy protobuf-c-big zlib-deflate)
ALL=(zlib lz4 zstd brotli xz bzip2 protobuf-c redis sqlite3 libpng libyaml expat copy_parse snappy rust "${PAPER[@]}")
PAIRS=5
ONLY=""
OUTFILE=""
VARIANT_ARGS=()
usage="usage: bench/programs/run.sh [--pairs N] [--only PROG,PROG] [--out FILE] [--variant COPIER_OPTIONS]... (PROG: ${ALL[*]}, or paper for the last four)"
while [ $# -gt 0 ]; do
  case $1 in
    --pairs) PAIRS=${2:?$usage}; shift 2 ;;
    --pairs=*) PAIRS=${1#--pairs=}; shift ;;
    --only) ONLY=${2:?$usage}; shift 2 ;;
    --only=*) ONLY=${1#--only=}; shift ;;
    --out) OUTFILE=${2:?$usage}; shift 2 ;;
    --out=*) OUTFILE=${1#--out=}; shift ;;
    --variant) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; VARIANT_ARGS+=("$2"); shift 2 ;;
    --variant=*) VARIANT_ARGS+=("${1#--variant=}"); shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
case $PAIRS in '' | *[!0-9]* | 0) echo "run.sh: --pairs takes a positive number, not $PAIRS" >&2; exit 2 ;; esac
progs=("${ALL[@]}")
if [ -n "$ONLY" ]; then
  IFS=, read -r -a progs <<<"${ONLY//paper/${PAPER[*]}}"
  read -r -a progs <<<"${progs[*]}"
  for p in "${progs[@]}"; do
    case " ${ALL[*]} " in *" $p "*) ;; *) echo "run.sh: unknown program $p" >&2; echo "$usage" >&2; exit 2 ;; esac
  done
fi
[ -n "$OUTFILE" ] || OUTFILE="$COPIER_ROOT/bench/results/programs-$(date -u +%Y-%m-%d).txt"
OUT="$COPIER_ROOT/testsuite/out/bench-programs"
rm -rf "$OUT"
mkdir -p "$OUT"
. "$HERE/lib/figures.sh"
VARIANTS=("${VARIANT_ARGS[@]}")
make_inputs

echo "bench/programs: load before: $(uptime)" >&2
load_before=$(uptime)
for p in "${progs[@]}"; do
  echo "bench/programs: $p" >&2
  "prog_${p//-/_}"
done
load_after=$(uptime)

{
  echo "# bench/programs/run.sh --pairs $PAIRS${ONLY:+ --only $ONLY}${VARIANTS[*]:+$(printf ' --variant %s' "${VARIANTS[@]}")} on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$COPIER_ROOT" rev-parse --short HEAD)"
  echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "# load before: ${load_before#*load average: }; after: ${load_after#*load average: } (uptime's 1/5/15-minute averages)"
  echo "# ratio: median of the $PAIRS pair ratios, above 1 = copiergen faster (plain/copiergen for times, copiergen/plain for rates); spread: min..max of the pair ratios"
  table
} >"$OUT/table.txt"
mkdir -p "$(dirname "$OUTFILE")"
cp "$OUT/table.txt" "$OUTFILE"
cat "$OUT/table.txt"
echo "bench/programs: written to ${OUTFILE#"$COPIER_ROOT"/}" >&2
