// CopierGen syncs the copy before the source buffer is overwritten.
// Seeded: with CopierGen's csync calls deleted, the overwrite is reported.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile unsigned long sink;
__attribute__((noinline)) void snapshot(char *dst, char *src, size_t n) {
  memcpy(dst, src, n);
  /* copy-use window: independent work that touches neither buffer */
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i++)
    sum = sum * 31 + (i ^ (i >> 3));
  sink = sum;
  src[0] = 'z'; /* BUG: source-write-before-csync */
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 70000 + (size_t)argc;
  char *src = malloc(n), *dst = malloc(n);
  memset(src, 'c', n);
  snapshot(dst, src, n);
  printf("%c %c\n", dst[0], src[0]);
  return 0;
}
