# Sourced by Copier's test and benchmark scripts (testsuite/, bench/compiler/,
# scripts/main-job.sh): where things are, and how to count what Copier did.
#
# Counting contract:
#  - rewritten copies: remarks of pass `copiergen` printed by `copiergen cc
#    --copier-remarks` (clang's -Rpass=copiergen), one per rewritten call;
#    remarks that report a csync are counted apart. Identical remarks from
#    the same source position (a file compiled twice, e.g. PIC and non-PIC)
#    count once.
#  - copies that went asynchronous at run time: libcopier's COPIER_STATS=1
#    report of each process (see copier_stats_env / sum_copier_stats).

COPIER_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/env.sh
. "$COPIER_ROOT/scripts/env.sh"
COPIERGEN="$COPIER_ROOT/target/release/copiergen"

need_built() {
  local f
  for f in "$COPIERGEN" "$COPIER_ROOT/target/release/libcopiergen.so" "$COPIER_ROOT/target/release/libcopier.a"; do
    [ -e "$f" ] || { echo "$f is missing: run cargo build --release --locked first" >&2; exit 1; }
  done
}

# count_remarks LOG...: prints "<rewritten> <csyncs> <missed>" from build logs.
count_remarks() {
  cat "$@" 2>/dev/null | tr -d '\r' | { grep -E 'remark: .*\[-Rpass(-missed)?=copiergen\]' || true; } | sort -u | awk '
    /\[-Rpass-missed=copiergen\]/ { missed++; next }
    /csync/ { csyncs++; next }
    { rewritten++ }
    END { printf "%d %d %d\n", rewritten, csyncs, missed }'
}

# copier_stats_env DIR: prints the environment assignments that make every
# process linked with libcopier report its statistics into DIR at exit.
copier_stats_env() {
  mkdir -p "$1"
  echo "COPIER_STATS=1 COPIER_STATS_FILE=$1/stats.%p"
}

# sum_copier_stats DIR [LOG...]: sums the statistics reports found in DIR's
# files and in the given logs; prints "<processes> <tasks> <async> <bytes>".
# A report is a line "copier: stats key=value ..." (libcopier's COPIER_STATS
# format): tasks = copies submitted, async = copies that ran on the service.
sum_copier_stats() {
  local dir=$1; shift
  { cat "$dir"/stats.* 2>/dev/null || true; [ $# -gt 0 ] && cat "$@" 2>/dev/null || true; } | tr -d '\r' |
    { grep -aE '^(\S+ )?copier: stats' || true; } | awk '
    { n++; for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] in want) s[kv[1]] += kv[2] } }
    BEGIN { want["tasks"]; want["async"]; want["bytes"] }
    END { printf "%d %d %d %d\n", n, s["tasks"], s["async"], s["bytes"] }'
}
