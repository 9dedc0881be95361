#!/usr/bin/env bash
# Copier's main job for a new user: installs what is needed, builds, and runs
# real programs on the in-process copy service.
#  1. examples/capi_parse.c: the C API by hand (amemcpy + csync_ready_end
#     windows) on dpkg's package database, compiled with clang-22 against
#     runtime/include/copier.h and libcopier; prints its result, the
#     memcpy/amemcpy timing and the COPIER_STATS line.
#  2. scripts/main-job-compiler.sh (when present): the same pattern written
#     with plain memcpy and rewritten by the CopierGen pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cargo build --release --locked
out=target/main-job
mkdir -p "$out"
input=/var/lib/dpkg/status
# An absolute PKG_CONFIG_PATH makes copier.pc's flags absolute (README).
export PKG_CONFIG_PATH="$PWD/runtime${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "== libcopier C API: building examples/capi_parse.c with clang-22"
echo "   clang-22 -O2 \$(pkg-config --cflags --libs copier) examples/capi_parse.c   (PKG_CONFIG_PATH=\$PWD/runtime)"
clang-22 -O2 -Wall -Wextra $(pkg-config --cflags copier) examples/capi_parse.c \
  -o "$out/capi_parse" $(pkg-config --libs copier) -Wl,-rpath,"$PWD/target/release"
rounds=50
echo "== running it on $input ($(stat -c %s "$input") bytes), $rounds rounds, with COPIER_STATS=1"
COPIER_STATS=1 "$out/capi_parse" "$input" $rounds >"$out/capi_parse.out" 2>"$out/capi_parse.err"
sed 's/^/   /' "$out/capi_parse.out"
stats=$(grep -ao 'copier: tasks=.*' "$out/capi_parse.err" | tail -1 || true)
echo "   ${stats:-<no COPIER_STATS line>}"
[ -n "$stats" ] || { echo "main job: FAILED: no stats line" >&2; exit 1; }
cat <<'NOTE'
   How to read the ratio: memcpy time / amemcpy time per round (above 1.0x:
   Copier is faster). Here the same input is copied every round, so source and
   destination stay in cache: the copy is a few percent of the round (tens of
   us against a parse of hundreds), so even hiding all of it behind the parse
   gives at most ~1.03x: ~1.0x is the ceiling in this warm regime, and the
   ready-window checks plus a service thread sharing two busy cores can put it
   a few percent below. Copier wins where the copy is a real share of the
   work, e.g. into freshly mapped memory (page faults): ~1.3-1.5x on the same
   copy-then-parse walk; see README "Benchmarks" (copier-bench copy-parse
   --regime fresh).
NOTE
if [ -x scripts/main-job-compiler.sh ] || [ -f scripts/main-job-compiler.sh ]; then
  bash scripts/main-job-compiler.sh
fi
