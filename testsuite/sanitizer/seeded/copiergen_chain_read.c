// OPT-LEVELS: -O0 -O1 -O2
// REWRITE: copiergen
// The program's own memcpy reads a destination its amemcpy left pending
// (no csync before it). CopierGen rewrites the 1 MiB memcpy into a copy
// chained on the pending one, which the runtime orders correctly; the
// program is still wrong (built without the pass it copies zeros), so the
// sanitizer reports the memcpy's read as it does for a short one
// (copiergen_chain_read_short.c).
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = calloc(n, 1), *x = malloc(n);
  amemcpy(d, s, n);
  memcpy(x, d, n); /* BUG: read-before-csync */
  csync(x, n);
  printf("%d\n", x[n - 1]);
  csync_all();
  return 0;
}
