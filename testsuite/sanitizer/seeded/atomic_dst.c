// An atomic read-modify-write on a pending destination.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  long *src = (long *)filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  __atomic_fetch_add(&dst[5], 1, __ATOMIC_SEQ_CST); /* BUG: write-before-csync */
  return 0;
}
