#!/usr/bin/env bash
# CopierSanitizer: the runtime's ABI symbols match the list in
# sanitizer/src/interface.rs, then the seeded-bug suite (every report kind,
# partial and unaligned csyncs, threads, libc interceptors, CopierGen output
# with its csyncs deleted) and the zero-report runs of correct programs
# (testsuite/sanitizer/run.sh). Budget: 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
lib=target/release/libcopier_san.a
want=$(sed -n '/^pub const SYMBOLS/,/^];/p' sanitizer/src/interface.rs | grep -o '"__copier_san_[A-Za-z0-9_]*"' | tr -d '"' | sort)
have=$(nm --defined-only "$lib" 2>/dev/null | awk '$2 ~ /^[TBD]$/ && $3 ~ /^__copier_san_/ { print $3 }' | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$have"))
if [ -n "$missing" ]; then
  echo "80-sanitizer: $lib lacks ABI symbols: $missing" >&2
  exit 1
fi
echo "80-sanitizer: $(echo "$want" | wc -l) ABI symbols defined in $lib"
bash testsuite/sanitizer/run.sh
# zlib built with `copiergen cc --sanitize` runs `make test` (static and
# shared) with zero reports.
bash testsuite/thirdparty/run.sh zlib --sanitize
