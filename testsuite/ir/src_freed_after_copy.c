// The source is freed after the copy: a whole-copy csync before free.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *take(char *src, size_t n) {
  char *dst = malloc(n);
  memcpy(dst, src, n);
  free(src);
  long s = 0;
  for (size_t i = 0; i < n; i += 4096) s += dst[i];
  dst[0] = (char)s;
  return dst;
}

int main(void) {
  size_t n = 90000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 97);
  char *d = take(src, n);
  printf("%d %d\n", d[0], d[n - 1]);
  free(d);
  return 0;
}
