// B copies from A's pending destination (legal: the runtime orders them).
// Syncing B completes B only; A's destination is still pending.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *a_src = filled(n, 'a'), *a_dst = malloc(n), *b_dst = malloc(n);
  amemcpy(a_dst, a_src, n);
  amemcpy(b_dst, a_dst, n);
  csync(b_dst, n);
  long v = b_dst[1];
  v += a_dst[1]; /* BUG: read-before-csync */
  use(v);
  return 0;
}
