// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// A number parser (strtol) reads a pending destination.
#include "../common.h"
#include <stdlib.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, '1'), *dst = malloc(n);
  src[200] = 0;
  amemcpy(dst, src, n);
  long v = strtol(dst + 100, NULL, 10); /* BUG: read-before-csync */
  csync_all();
  use((long)v);
  return 0;
}
