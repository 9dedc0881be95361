// The program overwrites part of the destination after the copy: the store
// waits for the copy's bytes there (otherwise the copy would land after it
// and undo the write).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void patch(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  dst[0] = 'P';
  dst[n - 1] = 'Q';
}

int main(void) {
  size_t n = 30000;
  char *src = malloc(n), *dst = malloc(n);
  memset(src, 'x', n);
  patch(dst, src, n);
  printf("%c %c %c\n", dst[0], dst[1], dst[n - 1]);
  free(src);
  free(dst);
  return 0;
}
