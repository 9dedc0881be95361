// munmap of a mapping that is the source of a pending copy.
// CHECKED-BY: interceptor
#include "../common.h"
#include <sys/mman.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *dst = malloc(n);
  src[0] = 1;
  amemcpy(dst, src, n);
  munmap(src, n); /* BUG: free-before-csync */
  return 0;
}
