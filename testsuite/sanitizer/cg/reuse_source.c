// CopierGen syncs the copy before the source buffer is overwritten.
// Seeded: with CopierGen's csync calls deleted, the overwrite is reported.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void snapshot(char *dst, char *src, size_t n) {
  memcpy(dst, src, n);
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
