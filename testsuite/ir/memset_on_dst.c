// memset and memcmp over part of the destination with run-time lengths: a
// narrow csync(ptr, len) of exactly those bytes.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int scrub(char *dst, const char *src, size_t n, size_t head) {
  memcpy(dst, src, n);
  memset(dst, 0, head);
  return memcmp(dst + head, src + head, n - head);
}

int main(void) {
  size_t n = 60000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(1 + i % 100);
  int c = scrub(dst, src, n, 1000);
  printf("%d %d %d\n", c, dst[999], dst[1000]);
  free(src);
  free(dst);
  return 0;
}
