#!/usr/bin/env bash
# Run testsuite/thirdparty/run.sh for packages x modes and print a Markdown
# table of the result lines (third_party/build/results/*.txt), one row per
# package and mode. Keeps going after a failure; exits 1 if any run failed.
#
#   testsuite/thirdparty/matrix.sh [PKG...]         (default: every package but redis)
#   MODES="norewrite pass t1 san t1-san" testsuite/thirdparty/matrix.sh lz4
#   TABLE_ONLY=1 testsuite/thirdparty/matrix.sh ...   (only the table, from the last runs)
#
# Modes: norewrite (--no-rewrite), pass (default options), t1 (--threshold1),
# san (--sanitize), t1-san (--threshold1 --sanitize).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(zlib protobuf-c bzip2 lz4 xz-utils libzstd libyaml jansson expat brotli pcre2 libpng1.6 sqlite3)
MODES=${MODES:-norewrite pass t1 san t1-san}
results="$COPIER_ROOT/third_party/build/results"
status=0
for p in "${pkgs[@]}"; do
  for m in $MODES; do
    case $m in
      norewrite) args=(--no-rewrite); sfx=-norewrite ;;
      pass) args=(); sfx= ;;
      t1) args=(--threshold1); sfx=-t1 ;;
      san) args=(--sanitize); sfx=-san ;;
      t1-san) args=(--threshold1 --sanitize); sfx=-t1-san ;;
      *) echo "matrix.sh: unknown mode $m" >&2; exit 2 ;;
    esac
    [ "${TABLE_ONLY:-0}" = 1 ] && continue
    bash "$here/run.sh" "$p" "${args[@]}" >/dev/null 2>&1 || status=1
    [ -f "$results/$p$sfx.txt" ] || echo "thirdparty $p$sfx: FAIL (setup)" >"$results/$p$sfx.txt"
    cat "$results/$p$sfx.txt"
  done
done
echo
echo "| package | mode | result | rewritten | csyncs | missed | processes | async tasks | inline | async bytes | tests passed | sanitizer reports | build s | test s |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for p in "${pkgs[@]}"; do
  for m in $MODES; do
    sfx=-$m
    [ "$m" != pass ] || sfx=
    line=$(cat "$results/$p$sfx.txt" 2>/dev/null || echo "thirdparty $p$sfx: NOTRUN")
    res=$(echo "$line" | sed -E 's/^thirdparty [^:]*: ([A-Z]+( \([a-z]+\))?).*/\1/')
    get() { echo "$line" | grep -oE "(^| )$1=[0-9]+" | cut -d= -f2; }
    echo "| $p | $m | $res | $(get rewritten) | $(get csyncs) | $(get missed) | $(get processes) | $(get async_tasks) | $(get inline) | $(get async_bytes) | $(get tests) | $(get sanitizer_reports) | $(get build) | $(get test) |"
  done
done
exit $status
