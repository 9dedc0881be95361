#!/usr/bin/env bash
# Compiler part of the main job (called by scripts/main-job.sh after the
# build): builds a real program with `copiergen cc` — examples/copy_parse.c,
# which reads dpkg's status file (the Debian package database, ~700 KB of
# real control-file data) in 256 KiB chunks, copies each chunk into a message
# buffer and parses it — then runs it on the in-process copy service and
# prints what Copier did.
set -euo pipefail
cd "$(dirname "$0")/.."
. testsuite/lib/common.sh
need_built
out=testsuite/out/main-job
mkdir -p "$out"
input=/var/lib/dpkg/status

echo "== copiergen: building examples/copy_parse.c with the pass"
echo "   target/release/copiergen cc -O2 --copier-remarks examples/copy_parse.c -o $out/copy_parse"
"$COPIERGEN" cc -O2 --copier-remarks examples/copy_parse.c -o "$out/copy_parse" >"$out/remarks.log" 2>&1
{ grep -E 'remark: .*\[-Rpass=copiergen\]' "$out/remarks.log" || true; } | sed -E 's|^[^ ]*/examples/|examples/|; s|^|   |' | head -8
read -r rewritten csyncs missed < <(count_remarks "$out/remarks.log")
echo "   pass: $rewritten copies rewritten to amemcpy, $csyncs csyncs placed, $missed copies left synchronous"

echo "== the same program without the pass (copiergen cc --copier-no-rewrite), for comparison"
"$COPIERGEN" cc -O2 --copier-no-rewrite examples/copy_parse.c -o "$out/copy_parse.plain"

rounds=20
echo "== running both on $input ($(stat -c %s "$input") bytes) x$rounds with COPIER_STATS=1"
COPIER_STATS=1 "$out/copy_parse" "$input" $rounds >"$out/copiergen.out" 2>"$out/copiergen.err"
"$out/copy_parse.plain" "$input" $rounds >"$out/plain.out"
echo "   (totals over all $rounds rounds: each round parses the whole file again)"
echo "   copiergen build: $(cat "$out/copiergen.out")"
echo "   plain build:     $(cat "$out/plain.out")"
stats=$(grep -ao 'copier: tasks=.*' "$out/copiergen.err" | tail -1 || true)
echo "   COPIER_STATS: ${stats:-<none>}"
if ! cmp -s "$out/copiergen.out" "$out/plain.out"; then
  echo "main job: FAILED: the copiergen build printed a different result" >&2
  exit 1
fi
if [ -n "$stats" ]; then
  echo "== same output; Copier ran $(sed -n 's/.*tasks=\([0-9]*\).*/\1/p' <<<"$stats") of the program's copies asynchronously"
else
  echo "== same output; libcopier printed no COPIER_STATS line (is the runtime still the synchronous placeholder?)"
fi
