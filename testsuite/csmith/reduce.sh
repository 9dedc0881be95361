#!/usr/bin/env bash
# Minimise a csmith program on which CopierGen changed the output, for
# testsuite/e2e/regressions/.
#
#   testsuite/csmith/reduce.sh testsuite/out/csmith/mismatch-<seed>.c -O0|-O2 [OUT.c]
#
# Runs cvise (apt-get install cvise) with an interestingness test that keeps
# a program only while: it compiles without warnings that signal undefined
# behaviour, the baseline build (copiergen cc --copier-no-rewrite) exits 0
# within 5 s, and the CopierGen build (--copier-threshold=1, runtime
# threshold 1) prints something else. Writes the result to OUT.c (default
# testsuite/e2e/regressions/csmith-<seed>.c); run testsuite/e2e/run.sh after.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
src=${1:?usage: reduce.sh MISMATCH.c -O0|-O2 [OUT.c]}
opt=${2:?usage: reduce.sh MISMATCH.c -O0|-O2 [OUT.c]}
seed=$(basename "$src" .c); seed=${seed#mismatch-}
out=${3:-$COPIER_ROOT/testsuite/e2e/regressions/csmith-$seed.c}
command -v cvise >/dev/null || { echo "reduce.sh: cvise missing: apt-get install cvise" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src" "$work/p.c"
cat >"$work/test.sh" <<TEST
#!/usr/bin/env bash
set -u
f=p.c
clang-22 $opt -w -Werror=uninitialized -Werror=return-type -Werror=implicit-int -I/usr/include/csmith -fsyntax-only "\$f" 2>/dev/null || exit 1
"$COPIERGEN" cc --copier-no-rewrite $opt -w -I/usr/include/csmith "\$f" -o base 2>/dev/null || exit 1
"$COPIERGEN" cc --copier-threshold=1 $opt -w -I/usr/include/csmith "\$f" -o cg 2>/dev/null || exit 1
b=\$(timeout 5 ./base 2>/dev/null) || exit 1
c=\$(COPIER_OPTIONS=threshold=1 timeout 10 ./cg 2>/dev/null)
[ "\$b" != "\$c" ]
TEST
chmod +x "$work/test.sh"
(cd "$work" && ./test.sh) || { echo "reduce.sh: $src does not show the mismatch at $opt" >&2; exit 1; }
(cd "$work" && cvise --n "$(nproc)" ./test.sh p.c >/dev/null)
{ echo "/* Minimised from csmith seed $seed ($opt): CopierGen changed the output. */"; cat "$work/p.c"; } >"$out"
echo "reduce.sh: wrote $out ($(wc -l <"$out") lines)"
