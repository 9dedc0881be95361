# Sourced by Copier's test and benchmark scripts (testsuite/, bench/compiler/,
# scripts/main-job.sh): where things are, and how to count what Copier did.
#
# Counting contract:
#  - rewritten copies: remarks of pass `copiergen` printed by `copiergen cc
#    --copier-remarks` (clang's -Rpass=copiergen): "<copy> ... rewritten to
#    amemcpy|amemmove", one per rewritten call; remarks that place a csync
#    (or csync_ready_end) are counted apart, -Rpass-missed ones as missed. Identical remarks from
#    the same source position (a file compiled twice, e.g. PIC and non-PIC)
#    count once.
#  - copies that went asynchronous at run time: libcopier's COPIER_STATS=1
#    exit line of each process (see sum_copier_stats).

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
# Reads clang's remarks ("file:l:c: remark: ... [-Rpass=copiergen]") and
# lld's at LTO links ("file:l:c: ..." with no tag: lld prints -pass-remarks
# output untagged, so its missed remarks cannot be told apart and are not
# counted). Without -g every location is <unknown>:0:0 and identical remarks
# collapse: build with -g for exact counts.
count_remarks() {
  cat "$@" 2>/dev/null | tr -d '\r' | { grep -aE '^[^ ]*:[0-9]+:[0-9]+: ' || true; } | sort -u | awk '
    /\[-Rpass-missed=copiergen\]/ { missed++; next }
    / rewritten to amem(cpy|move)/ { rewritten++; next }
    /\[-Rpass=copiergen\]/ && /csync/ { csyncs++; next }
    /^[^ ]*:[0-9]+:[0-9]+: (windowed )?csync/ { csyncs++ }
    END { printf "%d %d %d\n", rewritten, csyncs, missed }'
}

# sum_copier_stats FILE...: sums libcopier's COPIER_STATS=1 exit lines
# ("copier: tasks=N bytes=N inline=N absorbed_bytes=N ...", one per process,
# on its stderr) found in the given logs; prints
# "<processes> <tasks> <inline> <bytes>": tasks = copies that ran
# asynchronously on the service, inline = copies run on the caller.
sum_copier_stats() {
  cat "$@" 2>/dev/null | tr -d '\r' | { grep -aoE 'copier: tasks=[0-9]+ .*' || true; } | awk '
    BEGIN { want["tasks"]; want["inline"]; want["bytes"] }
    { n++; for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] in want) s[kv[1]] += kv[2] } }
    # %.0f: the sums pass 2^31 (mawk prints %d saturated at 2147483647).
    END { printf "%d %.0f %.0f %.0f\n", n, s["tasks"], s["inline"], s["bytes"] }'
}

# pieces_missing: prints why the real plugin or runtime is not there yet
# (placeholders from the workspace skeleton), or nothing when both are.
# Test stages that need both fail with this reason (require_pieces).
pieces_missing() {
  local plugin=${COPIERGEN_PLUGIN:-$COPIER_ROOT/target/release/libcopiergen.so}
  if ! nm -D --defined-only "$plugin" 2>/dev/null | grep -q ' llvmGetPassPluginInfo$'; then
    echo "the pass plugin ($plugin) has no llvmGetPassPluginInfo (placeholder)"
    return
  fi
  local d
  d=$(mktemp -d)
  # Referencing a symbol pulls libcopier.a's service into the link.
  printf 'void csync_all(void);\nint main(void) { csync_all(); return 0; }\n' >"$d/t.c"
  if ! "$COPIERGEN" cc --copier-no-rewrite "$d/t.c" -o "$d/t" 2>/dev/null; then
    echo "copiergen cannot link a trivial program"
  elif ! COPIER_STATS=1 "$d/t" 2>&1 | grep -q 'copier: tasks='; then
    echo "libcopier prints no COPIER_STATS line (placeholder runtime)"
  fi
  rm -rf "$d"
}

# require_pieces STAGE: a test stage that needs the real plugin and runtime
# fails at once, saying which is missing (both have landed: a placeholder
# or a runtime without COPIER_STATS is a regression, not a reason to skip).
require_pieces() {
  local why
  why=$(pieces_missing)
  if [ -n "$why" ]; then
    echo "$1: FAILED: $why"
    exit 1
  fi
}

# prune FILE...: removes a passing check's build products (executables are
# ~9 MB each: the runtime and Rust's std carry debug info), so a suite's peak
# disk use stays that of one case plus the failures, whose files are kept for
# inspection. COPIER_KEEP_OUTPUT=1 keeps everything.
prune() {
  [ "${COPIER_KEEP_OUTPUT:-0}" = 1 ] || rm -rf "$@"
}

# low_disk_note PATH: prints a note when PATH's file system has less than
# 512 MiB free, else nothing. A link that runs out of disk loses the linker's
# own message (it is written before the linker deletes its partial output and
# frees the space), leaving only "linker command failed with exit code 1":
# print this beside every build failure.
low_disk_note() {
  local avail
  avail=$(df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')
  if [ -n "$avail" ] && [ "$avail" -lt 512 ]; then
    echo "(only ${avail} MiB free on the file system of $1: a build may have failed for lack of disk, and the linker's own message is then lost)"
  fi
}
