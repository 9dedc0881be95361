// The destination is passed to realloc after the copy: synced before (realloc
// may move or free the block).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *grow(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  buf = realloc(buf, 2 * n);
  memset(buf + n, 0, n);
  return buf;
}

int main(void) {
  size_t n = 45000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 29);
  char *b = grow(src, n);
  printf("%d %d %d\n", b[0], b[n - 1], b[2 * n - 1]);
  free(b);
  free(src);
  return 0;
}
