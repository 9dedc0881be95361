// Freeing the destination of a pending copy (the copy would write freed
// CHECKED-BY: interceptor
// memory): free-before-csync.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  free(dst); /* BUG: free-before-csync */
  return 0;
}
