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
want="copiergen: warning: COPIERGEN_OPTIONS: bad value 'abc' for option '-copiergen-threshold' (expected an unsigned integer); ignored"
if [ "$err" = "$want" ]; then
  echo "ok: bad COPIERGEN_OPTIONS value: one line: $err"
else
  echo "FAILED: bad COPIERGEN_OPTIONS value: expected exactly '$want', got: $err"
  exit 1
fi
