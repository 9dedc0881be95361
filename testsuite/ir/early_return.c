// Early returns: every return (of the several paths) syncs the pending copy;
// a path that never copied syncs an empty range.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int fill(char *dst, const char *src, size_t n, int mode) {
  if (mode == 0)
    return -1;
  memcpy(dst, src, n);
  if (mode == 1)
    return 1;
  if (dst[0] == 0)
    return 2;
  return dst[n / 2];
}

int main(void) {
  size_t n = 50000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 9);
  long s = 0;
  for (int mode = 0; mode < 4; mode++) {
    memset(dst, 1, n);
    s = s * 10 + fill(dst, src, n, mode);
    s += dst[n - 1];
  }
  printf("%ld\n", s);
  free(src);
  free(dst);
  return 0;
}
