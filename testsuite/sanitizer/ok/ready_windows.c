// Parse a pending copy through csync_ready_end windows (as CopierGen's loops
// and examples/capi_parse.c do), with a second copy pending right after it
// and a third whose source is the parsed buffer's neighbour: no report.
#include "../common.h"
const void *csync_ready_end(const void *addr, size_t n);
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(3 * n, 'a'), *dst = malloc(2 * n), *other = malloc(n);
  amemcpy(dst, src, n);
  amemcpy(dst + n, src + n, n);
  long sum = 0;
  const char *end = dst;
  for (const char *p = dst; p < dst + n; p++) {
    if (p >= end)
      end = csync_ready_end(p, 1);
    sum += *p;
  }
  csync(dst + n, n);
  amemcpy(other, dst + n, n);
  for (size_t i = 0; i < n; i += 4096)
    sum += dst[i];
  csync_all();
  printf("%ld\n", sum);
  free(src);
  free(dst);
  free(other);
  return 0;
}
