// Reading the source of a pending copy is allowed.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  long v = 0;
  for (size_t i = 0; i < n; i += 512)
    v += src[i];
  printf("%zu %ld\n", strlen(src) > 0 ? (size_t)1 : 0, v);
  csync(dst, n);
  return 0;
}
