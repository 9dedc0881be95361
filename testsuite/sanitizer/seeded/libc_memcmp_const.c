// OPT-LEVELS: -O0 -O1 -O2
// memcmp with a small constant length: at -O1/-O2 CodeGen's ExpandMemCmp
// would turn it into plain loads after the instrumentation ran; the pass
// keeps it a call (nobuiltin), so the interceptor sees it.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  int r = memcmp(dst, src, 16); /* BUG: read-before-csync */
  csync_all();
  use(r);
  return 0;
}
