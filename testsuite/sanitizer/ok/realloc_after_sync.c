// realloc after the copy's csync; the copy's source is freed after it.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, n);
  dst = realloc(dst, 4 * n);
  free(src);
  printf("%d\n", dst[0] == 'a');
  free(dst);
  return 0;
}
