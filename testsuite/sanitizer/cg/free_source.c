// CopierGen syncs before the source is freed.
// Seeded: with CopierGen's csync calls deleted, the free is reported.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
__attribute__((noinline)) char *take(char *src, size_t n) {
  char *dst = malloc(n);
  memcpy(dst, src, n);
  /* copy-use window: independent work that touches neither buffer */
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i++)
    sum = sum * 31 + (i ^ (i >> 3));
  sink = sum;
  free(src); /* BUG: free-before-csync */
  return dst;
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 100000 + (size_t)argc;
  char *src = malloc(n);
  memset(src, 'b', n);
  char *d = take(src, n);
  printf("%c\n", d[n - 1]);
  free(d);
  return 0;
}
