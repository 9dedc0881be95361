// Freeing the source of a pending copy: free-before-csync.
// CHECKED-BY: interceptor
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  free(src); /* BUG: free-before-csync */
  csync(dst, n);
  return 0;
}
