// The destination is chosen on two paths (a phi after if/else): accesses
// through the phi are recognised as touching it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long pick(char *a, char *b, const char *src, size_t n, int which) {
  char *dst;
  if (which) {
    dst = a;
    a[0] = 1;
  } else {
    dst = b;
    b[0] = 2;
  }
  memcpy(dst, src, n);
  long s = 0;
  for (size_t i = 0; i < n; i += 511) s += dst[i];
  return s;
}

int main(void) {
  size_t n = 80000;
  char *a = malloc(n), *b = malloc(n), *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 200);
  printf("%ld %ld\n", pick(a, b, src, n, 1), pick(a, b, src, n, 0));
  free(a);
  free(b);
  free(src);
  return 0;
}
