// CopierGen syncs before the destination is handed to libc (fwrite).
// Seeded: with CopierGen's csync calls deleted, the fwrite interceptor
// reports the read.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void emit(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  /* copy-use window: independent work that touches neither buffer */
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i++)
    sum = sum * 31 + (i ^ (i >> 3));
  fwrite(dst, 1, 8 + (sum == 7), stdout); /* BUG: read-before-csync */
  fputc('\n', stdout);
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 50000 + (size_t)argc;
  char *src = malloc(n), *dst = malloc(n);
  memset(src, 'd', n);
  emit(dst, src, n);
  return 0;
}
