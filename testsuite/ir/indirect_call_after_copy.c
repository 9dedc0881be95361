// An indirect call (function pointer) may read anything that escaped: the
// destination, an argument of the caller, is synced before it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long (*reducer)(const char *, size_t);

static long sum(const char *p, size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i += 100) s += p[i];
  return s;
}

static long first(const char *p, size_t n) { return p[0] + (long)n; }

__attribute__((noinline)) long apply(char *dst, const char *src, size_t n, reducer f, const char *other) {
  memcpy(dst, src, n);
  return f(other, 16);
}

int main(void) {
  size_t n = 30000;
  char *dst = malloc(n), *src = malloc(n);
  memset(src, 3, n);
  reducer fs[2] = {sum, first};
  printf("%ld %ld\n", apply(dst, src, n, fs[0], dst), apply(dst, src, n, fs[1], src));
  free(dst);
  free(src);
  return 0;
}
