// libc's memcpy (called as a function, not an intrinsic) reading a pending
// CHECKED-BY: interceptor
// destination (interceptor).
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *out = malloc(n);
  amemcpy(dst, src, n);
  void *(*volatile cp)(void *, const void *, size_t) = memcpy;
  cp(out, dst + 100, 100); /* BUG: read-before-csync */
  return 0;
}
