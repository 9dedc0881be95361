// Copy, csync, then read, write and free both buffers: no report.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, n);
  long v = dst[0] + dst[n - 1];
  dst[5] = 'x';
  src[5] = 'y';
  printf("%ld %d\n", v, memcmp(dst + 6, src + 6, n - 6));
  free(src);
  free(dst);
  return 0;
}
