// printf("%s") reading a pending destination (interceptor).
// CHECKED-BY: interceptor
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  src[40] = 0;
  amemcpy(dst, src, n);
  csync(dst + 20, n - 20);
  printf("[%s]\n", dst); /* BUG: read-before-csync */
  return 0;
}
