// Two copies read one source: syncing the first copy's destination leaves
// the source pending for the second.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *d1 = malloc(n), *d2 = malloc(n);
  amemcpy(d1, src, n);
  amemcpy(d2, src, n);
  csync(d1, n);
  src[5] = 'q'; /* BUG: source-write-before-csync */
  csync(d2, n);
  return 0;
}
