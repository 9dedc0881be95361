// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// libc's strncasecmp compares a pending destination.
#include "../common.h"
#include <strings.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *other = malloc(16);
  src[n - 1] = 0;
  strcpy(other, "ABCDEFGH");
  amemcpy(dst, src, n);
  int r = strncasecmp(dst, other, 8); /* BUG: read-before-csync */
  csync_all();
  use((long)r);
  return 0;
}
