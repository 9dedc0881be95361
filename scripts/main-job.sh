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
echo "== libcopier C API: building examples/capi_parse.c with clang-22"
echo "   clang-22 -O2 \$(pkg-config --cflags --libs copier) examples/capi_parse.c"
clang-22 -O2 -Wall -Wextra $(PKG_CONFIG_PATH=runtime pkg-config --cflags copier) examples/capi_parse.c \
  -o "$out/capi_parse" $(PKG_CONFIG_PATH=runtime pkg-config --libs copier) -Wl,-rpath,"$PWD/target/release"
echo "== running it on $input ($(stat -c %s "$input") bytes) with COPIER_STATS=1"
COPIER_STATS=1 "$out/capi_parse" "$input" 50 >"$out/capi_parse.out" 2>"$out/capi_parse.err"
sed 's/^/   /' "$out/capi_parse.out"
stats=$(grep -ao 'copier: tasks=.*' "$out/capi_parse.err" | tail -1 || true)
echo "   ${stats:-<no COPIER_STATS line>}"
[ -n "$stats" ] || { echo "main job: FAILED: no stats line" >&2; exit 1; }
if [ -x scripts/main-job-compiler.sh ] || [ -f scripts/main-job-compiler.sh ]; then
  bash scripts/main-job-compiler.sh
fi
