// Writing a destination byte before its csync: the copy may overwrite it
// later (write-before-csync).
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  dst[7] = 'x'; /* BUG: write-before-csync */
  csync(dst, n);
  return 0;
}
