// OPT-LEVELS: -O0 -O1 -O2
// REWRITE: copiergen
// As copiergen_chain_read.c with a 100-byte memcpy, which stays a memcpy:
// the same report at the same line.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = calloc(n, 1), *x = malloc(n);
  amemcpy(d, s, n);
  memcpy(x, d, 100); /* BUG: read-before-csync */
  csync(x, 100);
  printf("%d\n", x[99]);
  csync_all();
  return 0;
}
