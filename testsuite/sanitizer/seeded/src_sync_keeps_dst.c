// csync of the source range only waits for the copy to read it: the
// destination is still pending.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(src, n);
  src[0] = 'z';
  long v = dst[0]; /* BUG: read-before-csync */
  use(v);
  return 0;
}
