// CHECKED-BY: interceptor
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 8
// EXPECT-STDERR: FREE of 66537 bytes at
// EXPECT-STDERR: FREE of 66535 bytes at
// EXPECT-STDERR: FREE of 66539 bytes at
// EXPECT-STDERR: FREE of 66541 bytes at
// EXPECT-STDERR: FREE of 66543 bytes at
// EXPECT-STDERR: FREE of 66545 bytes at
// EXPECT-STDERR: FREE of 66547 bytes at
// EXPECT-STDERR: FREE of 66549 bytes at
// Every allocator records the size the program asked for; free and
// realloc of a pending source report that size (not glibc's usable size,
// a multiple of 8 or 16 here, or of the page for mmap'd chunks). Each
// source is copied from as a whole.
#define _GNU_SOURCE
#include "../common.h"
#include <malloc.h>
#define K 65536 /* above the runtime's inline threshold */
static char dst[8 * 2 * K];
static void fill(char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (char)i;
}
int main(void) {
  char *a = malloc(K + 1001);
  char *b = calloc(5, 13307) /* K + 999 */;
  char *c = NULL;
  if (posix_memalign((void **)&c, 64, K + 1003)) return 2;
  char *d = aligned_alloc(64, K + 1005);
  char *e = memalign(256, K + 1007);
  char *f = valloc(K + 1009);
  char *g = malloc(10);
  g = realloc(g, K + 1011);
  char *h = strdup("x");
  h = realloc(h, K + 1013);
  char *bufs[] = {a, b, c, d, e, f, g, h};
  size_t lens[] = {K + 1001, K + 999, K + 1003, K + 1005, K + 1007, K + 1009, K + 1011, K + 1013};
  for (int i = 0; i < 8; i++) {
    fill(bufs[i], lens[i]);
    if (malloc_usable_size(bufs[i]) != lens[i]) return 3;
    amemcpy(dst + 2 * K * i, bufs[i], lens[i]);
  }
  free(a); /* BUG: free-before-csync */
  free(b);
  free(c);
  free(d);
  free(e);
  free(f);
  free(g);
  h = realloc(h, 4 * K);
  use((long)h); /* (else the optimizer deletes the realloc, free pair) */
  csync_all();
  free(h);
  return 0;
}
