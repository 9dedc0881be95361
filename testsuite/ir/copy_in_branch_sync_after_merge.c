// The copy runs on one path only; the use after the merge syncs on every
// path (on the path without the copy the sync covers an empty range).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int maybe_refresh(char *cache, const char *src, size_t n, int stale) {
  if (stale)
    memcpy(cache, src, n);
  puts("refreshed?");
  return cache[n - 1];
}

int main(void) {
  size_t n = 50000;
  char *cache = calloc(n, 1), *src = malloc(n);
  memset(src, 9, n);
  int a = maybe_refresh(cache, src, n, 0);
  int b = maybe_refresh(cache, src, n, 1);
  printf("%d %d\n", a, b);
  free(cache);
  free(src);
  return 0;
}
