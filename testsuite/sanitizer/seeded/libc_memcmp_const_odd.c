// OPT-LEVELS: -O0 -O1 -O2
// memcmp of 15 bytes (not a check size of its own) of a pending
// destination, at an odd address: checked inline before the call, which
// CodeGen then expands into loads.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  int r = memcmp(dst + 1, src + 1, 15); /* BUG: read-before-csync */
  csync_all();
  use(r);
  return 0;
}
