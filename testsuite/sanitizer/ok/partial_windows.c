// A parser that syncs each record just before reading it (unaligned
// windows of 13 bytes), then csync_all before freeing.
#include "../common.h"
int main(void) {
  size_t n = 13 * 1000 + 5;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  long sum = 0;
  for (size_t off = 0; off + 13 <= n; off += 13) {
    csync(dst + off, 13);
    for (size_t i = 0; i < 13; i++)
      sum += dst[off + i];
  }
  src[0] = 'q'; /* the source byte of a synced destination byte */
  csync_all();
  printf("%ld\n", sum + dst[n - 1]);
  free(src);
  free(dst);
  return 0;
}
