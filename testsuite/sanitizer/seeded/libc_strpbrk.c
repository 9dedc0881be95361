// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O1 -O2
// libc's strpbrk scans a pending destination up to its match.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *set = malloc(4);
  src[n - 1] = 0;
  src[300] = 'z';
  strcpy(set, "zy");
  amemcpy(dst, src, n);
  char *r = strpbrk(dst, set); /* BUG: read-before-csync */
  csync_all();
  use((long)r);
  return 0;
}
