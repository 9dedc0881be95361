/* Prints the stats line at exit (run with COPIER_STATS=1 or stats=1 in
 * COPIER_OPTIONS); the test script checks its exact format. */
#include <copier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  size_t n = 1u << 20;
  unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n);
  memset(a, 5, n);
  amemcpy(b, a, n);     /* async */
  amemcpy(c, b, n);     /* absorbs a */
  amemcpy(a, c, 64);    /* inline */
  csync_all();
  if (memcmp(c, b, n) != 0)
    return 1;
  amemcpy_lazy(b, a, n); /* dropped: overwritten before use */
  amemcpy(b, c, n);
  csync(b, n);
  return 0; /* the line is printed by the exit handler */
}
