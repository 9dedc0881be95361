// The source is overwritten right after the copy: the store waits (narrow
// csync of the written bytes) until the copy has read them, so the
// destination keeps the old contents.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void snapshot_then_clear(char *dst, char *src, size_t n) {
  memcpy(dst, src, n);
  for (size_t i = 0; i < n; i++) src[i] = 0;
}

int main(void) {
  size_t n = 40000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(1 + i % 120);
  snapshot_then_clear(dst, src, n);
  long a = 0, b = 0;
  for (size_t i = 0; i < n; i++) {
    a += dst[i];
    b += src[i];
  }
  printf("%ld %ld\n", a, b);
  free(src);
  free(dst);
  return 0;
}
