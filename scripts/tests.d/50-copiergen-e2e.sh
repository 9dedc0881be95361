#!/usr/bin/env bash
# copiergen end to end: C, C++, Rust and example programs built with and
# without the pass print the same output and their large copies go
# asynchronous (testsuite/e2e/run.sh). Budget: 1 minute (measured 7 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
. testsuite/lib/common.sh
require_pieces 50-copiergen-e2e
bash testsuite/e2e/run.sh

# Diagnostics with the real plugin: a bad COPIERGEN_OPTIONS value gives one
# warning line from copiergen, none from LLVM's parser (whose message had an
# empty program name: ": for the --copiergen-threshold option: ...").
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '#include <string.h>\nchar a[1 << 16], b[1 << 16];\nint main(void) { memcpy(b, a, sizeof a); return b[3]; }\n' >"$d/prog.c"
err=$(cd "$d" && COPIERGEN_OPTIONS=-copiergen-threshold=abc "$COPIERGEN" cc -c prog.c 2>&1 || true)
want="copiergen: warning: COPIERGEN_OPTIONS: bad value 'abc' for option '-copiergen-threshold' (expected a size in bytes (digits with an optional k, m or g suffix)); ignored"
if [ "$err" = "$want" ]; then
  echo "ok: bad COPIERGEN_OPTIONS value: one line: $err"
else
  echo "FAILED: bad COPIERGEN_OPTIONS value: expected exactly '$want', got: $err"
  exit 1
fi
# A C executable loads the libraries clang's build loads and no more
# (libcopier's libm/libgcc_s cost every process start-up: +0.2-0.5 ms); the
# dynamic loader, which the static unwinder names, is mapped in every process.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort | tr '\n' ' '; }
(cd "$d" && "$COPIERGEN" cc -O2 prog.c -o prog.cg && clang-22 -O2 prog.c -o prog.plain)
if [ "$(needed "$d/prog.cg")" = "$(needed "$d/prog.plain")" ] && "$d/prog.cg"; [ $? = 0 ]; then
  echo "ok: C executable's shared libraries as clang's: $(needed "$d/prog.cg")"
else
  echo "FAILED: C executable needs '$(needed "$d/prog.cg")', clang's build '$(needed "$d/prog.plain")'"
  exit 1
fi
# With -flto the plugin is loaded by the compile job and by lld; the pass
# runs only at the link, which alone warns (trial finding: twice).
err=$(cd "$d" && COPIERGEN_OPTIONS=-copiergen-threshold=abc "$COPIERGEN" cc -O2 -flto prog.c -o prog.lto 2>&1 || true)
if [ "$err" = "$want" ]; then
  echo "ok: bad COPIERGEN_OPTIONS value with -flto: one line"
else
  echo "FAILED: bad COPIERGEN_OPTIONS value with -flto: expected exactly '$want', got: $err"
  exit 1
fi
# Boolean variables take true/yes/on like 1 (trial finding: only 1 worked);
# anything else is one warning and taken as unset.
yes_n=$(cd "$d" && COPIERGEN_SANITIZE=yes "$COPIERGEN" cc -O1 -S -emit-llvm prog.c -o - 2>/dev/null | grep -c copier_san || true)
err=$(cd "$d" && COPIERGEN_SANITIZE=maybe "$COPIERGEN" cc -O1 -S -emit-llvm prog.c -o "$d/maybe.ll" 2>&1 || true)
maybe_n=$(grep -c copier_san "$d/maybe.ll" || true)
if [ "$yes_n" -gt 0 ] && [ "$maybe_n" = 0 ] && [ "$err" = "copiergen: warning: COPIERGEN_SANITIZE='maybe' is not a boolean (1, true, yes, on or 0, false, no, off, empty); taken as unset" ]; then
  echo "ok: COPIERGEN_SANITIZE=yes instruments ($yes_n references), =maybe warns once and does not"
else
  echo "FAILED: COPIERGEN_SANITIZE: yes gave $yes_n references, maybe gave $maybe_n and stderr: $err"
  exit 1
fi

# A SIGALRM handler that memcpys 64 KiB (async-signal-safe) while main
# mallocs, copies (asynchronously) and frees: the handler's memcpy must stay
# memcpy (a rewritten one, amemcpy + csync, can hang on glibc's arena lock
# when the handler interrupted malloc: 11 of 20 runs of 300 ticks hung
# before the pass kept handler copies). The build's remarks must show it
# kept and main's copies rewritten; the run must finish (timeout).
sig=testsuite/e2e/signal/sigalrm_memcpy.c
"$COPIERGEN" cc -O2 -g --copier-remarks "$sig" -o "$d/sigalrm" >"$d/sigalrm.build" 2>&1 || { cat "$d/sigalrm.build"; exit 1; }
kept_remark=$(grep "stays synchronous: function 'on_alarm' is a signal handler" "$d/sigalrm.build" || true)
kept=$(printf '%s' "$kept_remark" | grep -c . || true)
# file:line:col of the kept copy: no rewrite remark may point there.
kept_at=$(printf '%s' "$kept_remark" | grep -oE 'sigalrm_memcpy\.c:[0-9]+:[0-9]+' | head -1 || true)
handler_rewritten=$(grep -F "$kept_at: remark:" "$d/sigalrm.build" | grep "rewritten to" || true)
main_rewritten=$(grep -c "rewritten to amemcpy" "$d/sigalrm.build" || true)
if [ "$kept" != 1 ] || [ -n "$handler_rewritten" ] || [ "$main_rewritten" -lt 1 ]; then
  echo "FAILED: sigalrm_memcpy remarks: handler kept $kept times (want 1), main rewrote $main_rewritten copies (want >= 1); build log:"
  cat "$d/sigalrm.build"
  exit 1
fi
for run in 1 2 3; do
  if ! out=$(COPIER_STATS=1 timeout 60 "$d/sigalrm" 300 2>"$d/sigalrm.err"); then
    echo "FAILED: sigalrm_memcpy run $run did not finish within 60 s or failed (status $?): $out"
    cat "$d/sigalrm.err"
    exit 1
  fi
  read -r _ tasks _ _ < <(sum_copier_stats "$d/sigalrm.err")
  case "$out" in
    "ok: 300 ticks"*) ;;
    *) echo "FAILED: sigalrm_memcpy run $run printed '$out'"; exit 1 ;;
  esac
  [ "$tasks" -gt 0 ] || { echo "FAILED: sigalrm_memcpy run $run: main's copies did not go asynchronous"; exit 1; }
done
echo "ok: sigalrm_memcpy: handler memcpy kept (remark SignalHandler), main's $main_rewritten copies asynchronous, 3 runs of 300 SIGALRM ticks finished"

# Per-site adaptivity (runtime/src/sites.rs): a site whose copy is read right
# after its submit goes inline after adapt_after observations; one whose copy
# overlaps independent work stays asynchronous. Same output as clang-22.
ad=testsuite/e2e/adapt/sites.c
"$COPIERGEN" cc -O2 -g "$ad" -o "$d/sites" >"$d/sites.build" 2>&1 || { cat "$d/sites.build"; exit 1; }
clang-22 -O2 "$ad" -o "$d/sites.plain"
want=$("$d/sites.plain" 200)
# The overlapped site pays only while the service thread has a core: on a
# 2-vCPU guest the scheduler sometimes leaves it beside the busy main thread
# for a whole run (seen in about 1 of 10 runs; the counters line then shows
# the waiter executing most bytes). Such a run is tried again, twice; after a
# third, only the waited-for site is checked.
for attempt in 1 2 3; do
  got=$(COPIER_STATS=sites timeout 120 "$d/sites" 200 2>"$d/sites.err") || { echo "FAILED: sites run: $(cat "$d/sites.err")"; exit 1; }
  [ "$got" = "$want" ] || { echo "FAILED: sites: output '$got' (want '$want')"; exit 1; }
  waited=$(grep -E "copier: site .*sites\.c:32:[0-9]+ " "$d/sites.err" || true)
  overlapped=$(grep -E "copier: site .*sites\.c:34:[0-9]+ " "$d/sites.err" || true)
  [[ "$waited" == *"state=inline"* && "$overlapped" == *"state=async"* ]] && break
  svc=$(sed -n 's/.* service_bytes=\([0-9]*\) waiter_bytes=\([0-9]*\) .*/\1 \2/p' "$d/sites.err" | head -1)
  starved=$(echo "$svc" | awk '{ print ($1 < $2) ? 1 : 0 }')
  if [ "$starved" != 1 ]; then
    echo "FAILED: sites (attempt $attempt; service/waiter bytes: ${svc:-?}); site lines:"
    cat "$d/sites.err"
    exit 1
  fi
  if [ "$attempt" = 3 ]; then
    # (no core for the service in three runs: a loaded machine; the
    # overlapped copies could not pay, and going inline was right)
    echo "note: sites: the service thread had no core in 3 runs (a loaded machine); the overlapped site's check is skipped, the waited-for site's holds"
    [[ "$waited" == *"state=inline"* ]] || { echo "FAILED: sites: the waited-for site did not go inline: $waited"; exit 1; }
    overlapped="(skipped: no core for the service)"
    break
  fi
  echo "note: sites attempt $attempt: the service thread executed $svc (service/waiter bytes): no core for it this run; again"
done
echo "ok: sites: waited-for site went inline; overlapped site (must stay async): ${waited#copier: site } | ${overlapped#copier: site }"
# The stats file gets the counters line and the site lines in one append: an
# unwritable one is reported once per process, not once per kind of line.
warn=$(COPIER_STATS_FILE=/nonexistent-dir/stats.txt timeout 120 "$d/sites" 20 2>&1 >/dev/null | grep -c "copier: stats_file /nonexistent-dir/stats.txt: " || true)
[ "$warn" = 1 ] || { echo "FAILED: sites: unwritable stats file reported $warn times (want 1)"; exit 1; }
sf="$d/sites-stats.txt"; rm -f "$sf"
COPIER_STATS=sites COPIER_STATS_FILE="$sf" timeout 120 "$d/sites" 20 >/dev/null 2>"$d/sites-file.err"
if [ "$(grep -c '^copier: tasks=' "$sf")" != 1 ] || [ "$(grep -c '^copier: site ' "$sf")" -lt 2 ]; then
  echo "FAILED: sites: stats file should hold one counters line and the site lines:"; cat "$sf"; exit 1
fi
# (the file takes them instead of stderr, COPIER_STATS=sites or not)
if grep -q '^copier: ' "$d/sites-file.err"; then
  echo "FAILED: sites: with a stats file, stderr still got:"; cat "$d/sites-file.err"; exit 1
fi
echo "ok: sites: stats file holds the counters line and $(grep -c '^copier: site ' "$sf") site lines, stderr none; an unwritable one is reported once"
# Across fork each process's site lines count its own copies only: the
# parent's site sums to 100 copies over both processes' lines.
fs=testsuite/e2e/adapt/fork_sites.c
"$COPIERGEN" cc -O1 -g "$fs" -o "$d/fork_sites" >"$d/fork_sites.build" 2>&1 || { cat "$d/fork_sites.build"; exit 1; }
ff="$d/fork-sites-stats.txt"; rm -f "$ff"
COPIER_STATS_FILE="$ff" timeout 120 "$d/fork_sites" >/dev/null 2>&1 || { echo "FAILED: fork_sites run"; exit 1; }
parent_copies=$(awk '/^copier: site .*fork_sites\.c:18:/ { for (i = 1; i <= NF; i++) if ($i ~ /^runtime_copies=/) { sub("runtime_copies=", "", $i); s += $i } } END { print s + 0 }' "$ff")
child_copies=$(awk '/^copier: site .*fork_sites\.c:24:/ { for (i = 1; i <= NF; i++) if ($i ~ /^runtime_copies=/) { sub("runtime_copies=", "", $i); s += $i } } END { print s + 0 }' "$ff")
if [ "$parent_copies" != 100 ] || [ "$child_copies" != 1 ]; then
  echo "FAILED: sites across fork: the parent's site counts $parent_copies copies (want 100), the child's $child_copies (want 1):"; cat "$ff"; exit 1
fi
echo "ok: sites: across fork the stats file counts the parent's 100 copies and the child's 1 once"

# README's first command: the main job's compiler part, with its checks
# (both builds print the same result, the lines and bytes match wc, the
# copiergen build ran a copy asynchronously); one load per run, so its
# timing is not read here.
echo "50: the main job's checks (scripts/main-job-compiler.sh, MAIN_JOB_ROUNDS=1)"
MAIN_JOB_PAIRS=5 MAIN_JOB_ROUNDS=1 bash scripts/main-job-compiler.sh >"$d/main-job.log" 2>&1 ||
  { cat "$d/main-job.log"; echo "FAILED: the main job"; exit 1; }
grep -E '^== result' "$d/main-job.log" || { cat "$d/main-job.log"; echo "FAILED: the main job printed no result"; exit 1; }
