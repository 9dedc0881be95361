// The same byte read before and after a submit in one block: the check of
// the first read must not stand for the second (the pass skips a repeated
// address only while no call intervenes).
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = filled(n, 'b');
  long before = dst[n / 2];
  amemcpy(dst, src, n);
  long after = dst[n / 2]; /* BUG: read-before-csync */
  use(before + after);
  csync(dst, n);
  return 0;
}
