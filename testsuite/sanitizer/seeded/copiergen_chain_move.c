// OPT-LEVELS: -O0 -O1 -O2
// REWRITE: copiergen
// As copiergen_chain_read.c with memmove (CopierGen's amemmove site; the
// pointers come through a volatile, so the compiler cannot make it memcpy).
#include "../common.h"
static char *volatile hide;
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = calloc(n, 1), *x;
  hide = malloc(n);
  x = hide;
  amemcpy(d, s, n);
  memmove(x, d, n); /* BUG: read-before-csync */
  csync(x, n);
  printf("%d\n", x[n - 1]);
  csync_all();
  return 0;
}
