// A partial csync of [10, 110): the byte just before it is still pending.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst + 10, 100);
  long v = dst[10] + dst[109];
  v += dst[9]; /* BUG: read-before-csync */
  use(v);
  return 0;
}
