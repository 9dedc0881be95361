// A copy into a fresh heap buffer that is returned: synced before the
// return (a pending copy never outlives its frame).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *duplicate(const char *src, size_t n) {
  char *p = malloc(n);
  if (!p)
    return NULL;
  memcpy(p, src, n);
  return p;
}

int main(void) {
  size_t n = 70000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i * 7);
  char *d = duplicate(src, n);
  long sum = 0;
  for (size_t i = 0; i < n; i++) sum += d[i];
  printf("%ld\n", sum);
  free(d);
  free(src);
  return 0;
}
