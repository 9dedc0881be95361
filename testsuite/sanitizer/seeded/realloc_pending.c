// realloc of a pending destination (it may move and free the block).
// CHECKED-BY: interceptor
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  dst = realloc(dst, 2 * n); /* BUG: free-before-csync */
  use((long)dst);
  return 0;
}
