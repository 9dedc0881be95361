// Reading a destination byte before any csync: read-before-csync.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  long v = dst[n / 2]; /* BUG: read-before-csync */
  use(v);
  csync(dst, n);
  return 0;
}
