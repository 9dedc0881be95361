// copier_wait on a descriptor completes that descriptor's copy only: a
// second copy into some of the same bytes is still pending after it, so
// reading those bytes needs the second copy's wait (or a csync) too
// (ok/wait_both_copies.c).
// EXPECT-STDERR: of copy #2: copier_submit(
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *a = filled(n, 'a'), *b = filled(n, 'b'), *dst = malloc(2 * n);
  copier_desc d1 = copier_submit(dst, a, n, 0, NULL, NULL);
  copier_desc d2 = copier_submit(dst + n / 2, b, n, 0, NULL, NULL);
  if (copier_wait(d1, 0, n) != 0)
    abort();
  long v = dst[n / 2 + 100]; /* BUG: read-before-csync */
  use(v);
  copier_wait(d2, 0, n);
  free(dst);
  return 0;
}
