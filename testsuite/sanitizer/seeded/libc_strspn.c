// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O1 -O2
// libc's strspn scans a pending destination.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *set = malloc(8);
  src[n - 1] = 0;
  strcpy(set, "abcdefg");
  amemcpy(dst, src, n);
  size_t r = strspn(dst, set); /* BUG: read-before-csync */
  csync_all();
  use((long)r);
  return 0;
}
