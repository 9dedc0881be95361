// Writing the source while the copy may still read it:
// source-write-before-csync.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  src[n - 1] = 0; /* BUG: source-write-before-csync */
  csync(dst, n);
  return 0;
}
