// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// libc's strcspn scans a pending destination.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *set = malloc(4);
  src[n - 1] = 0;
  strcpy(set, "zy");
  amemcpy(dst, src, n);
  size_t r = strcspn(dst, set); /* BUG: read-before-csync */
  csync_all();
  use((long)r);
  return 0;
}
