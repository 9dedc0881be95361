// libc's strlen reading a pending destination (interceptor).
// CHECKED-BY: interceptor
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  src[n - 1] = 0;
  amemcpy(dst, src, n);
  size_t (*volatile len)(const char *) = strlen;
  use((long)len(dst)); /* BUG: read-before-csync */
  return 0;
}
