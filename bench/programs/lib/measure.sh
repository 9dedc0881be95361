# Sourced by bench/programs/run.sh: interleaved A/B pairs and the table.
#
#   measure PROGRAM RUNNER SPEC...
#     SPEC is "figure|unit|kind" (kind: time, lower is better; rate, higher
#     is better). `RUNNER MODE` (MODE: plain | copiergen) measures every
#     figure of the group once and prints one value per line, in SPEC
#     order. measure runs it PAIRS times per mode, alternating which build
#     goes first (ABBAAB...), and adds one table row per figure. A runner
#     that fails (or prints too few numbers) ends the group with a row
#     saying so. Each entry of VARIANTS (COPIER_OPTIONS strings) adds
#     one more copiergen run per round with COPIER_OPTIONS set to it, and
#     one more row per figure against the same plain runs; a round then
#     rotates the order (ABC, BCA, CAB...).
#   failed_row PROGRAM WHAT REASON   a row for something that did not run
#   table                            prints the rows as a Markdown table
# Needs PAIRS and OUT set.

ROWS=()
VARIANTS=()

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# fmt VALUE UNIT: a value as the table shows it.
fmt() {
  case $2 in
    s) awk -v v="$1" 'BEGIN { printf "%.3f s", v }' ;;
    ms | us) awk -v v="$1" -v u="$2" 'BEGIN { printf (v < 10 ? "%.3f %s" : "%.1f %s"), v, u }' ;;
    MB/s) awk -v v="$1" 'BEGIN { printf "%.1f MB/s", v }' ;;
    *) awk -v v="$1" -v u="$2" 'BEGIN { printf "%.0f %s", v, u }' ;;
  esac
}

failed_row() { ROWS+=("$1|$2|-|-|-|$3"); }

measure() {
  local prog=$1 runner=$2 i m n k spec lines
  shift 2
  local specs=("$@") dir="$OUT/values/$prog/$runner"
  rm -rf "$dir"
  mkdir -p "$dir"
  # modes: plain, copiergen, then copiergen with VARIANTS[V] as vV
  local modes=(plain copiergen) v
  for v in "${!VARIANTS[@]}"; do modes+=("v$v"); done
  for i in $(seq 1 "$PAIRS"); do
    # ABBAAB (with variants ABC, BCA, CAB): each build follows the others
    # as often as it leads, so what one leaves warm (page cache, CPU
    # frequency) falls on all.
    local order=() j
    for j in "${!modes[@]}"; do order+=("${modes[$(((i - 1 + j) % ${#modes[@]}))]}"); done
    for m in "${order[@]}"; do
      if ! case $m in
        v*) COPIER_OPTIONS=${VARIANTS[${m#v}]} "$runner" copiergen ;;
        *) "$runner" "$m" ;;
      esac >"$dir/run.out" 2>"$dir/run.err" ||
        [ "$(grep -cE '^[0-9.eE+-]+$' "$dir/run.out")" -lt ${#specs[@]} ]; then
        echo "bench/programs: $prog $runner $m failed:" >&2
        tail -n 5 "$dir/run.err" "$dir/run.out" >&2
        local why
        why=$(grep -v '^$' "$dir/run.err" | tail -1 | cut -c1-80)
        for spec in "${specs[@]}"; do failed_row "$prog" "${spec%%|*}" "$m run failed: ${why:-no figure printed}"; done
        return 0
      fi
      mapfile -t lines < <(grep -E '^[0-9.eE+-]+$' "$dir/run.out")
      for k in "${!specs[@]}"; do echo "${lines[$k]}" >>"$dir/$k.$m"; done
    done
  done
  for k in "${!specs[@]}"; do
    IFS='|' read -r spec unit kind <<<"${specs[$k]}"
    for m in "${modes[@]:1}"; do
      local label=$spec
      [ "$m" = copiergen ] || label="$spec, COPIER_OPTIONS=${VARIANTS[${m#v}]}"
      # Pair ratios, above 1 = copiergen faster.
      paste "$dir/$k.plain" "$dir/$k.$m" | awk -v kind="$kind" \
        '{ print (kind == "time" ? $1 / $2 : $2 / $1) }' >"$dir/$k.$m.ratio"
      local pv cv r lo hi
      pv=$(median <"$dir/$k.plain")
      cv=$(median <"$dir/$k.$m")
      r=$(median <"$dir/$k.$m.ratio")
      lo=$(sort -g "$dir/$k.$m.ratio" | head -1)
      hi=$(sort -g "$dir/$k.$m.ratio" | tail -1)
      ROWS+=("$prog|$label|$(fmt "$pv" "$unit")|$(fmt "$cv" "$unit")|$(awk -v r="$r" 'BEGIN { printf "%.2fx", r }')|$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.2f..%.2f", a, b }')")
      echo "bench/programs: ${ROWS[-1]}" >&2
    done
  done
}

table() {
  echo "| program | figure | plain clang-22 | copiergen | ratio | spread |"
  echo "| --- | --- | --- | --- | --- | --- |"
  local r
  for r in "${ROWS[@]}"; do echo "| ${r//|/ | } |"; done
}

# elapsed REPS STDIN STDOUT CMD...: runs CMD REPS times, each reading the
# file STDIN from its start and writing STDOUT, and prints the mean wall
# seconds per run; fails when a run fails.
elapsed() {
  local reps=$1 in=$2 out=$3 t0 t1 i
  shift 3
  t0=$(date +%s%N)
  for ((i = 0; i < reps; i++)); do "$@" <"$in" >"$out" || return 1; done
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" -v n="$reps" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 / n }'
}
