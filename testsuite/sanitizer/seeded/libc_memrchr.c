// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O1 -O2
// libc's memrchr scans the tail of a pending destination.
#define _GNU_SOURCE
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  src[100] = 'z';
  amemcpy(dst, src, n);
  csync(dst, 4096);
  char *r = memrchr(dst, 'z', n); /* BUG: read-before-csync */
  csync_all();
  use((long)r);
  return 0;
}
