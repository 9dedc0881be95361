// The destination is handed to libc (fwrite, strlen): a whole-copy csync
// before each call that may read it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) size_t emit(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  fwrite(dst, 1, 16, stdout);
  putchar('\n');
  return strlen(dst);
}

int main(void) {
  size_t n = 50000;
  char *src = malloc(n + 1), *dst = malloc(n + 1);
  for (size_t i = 0; i < n; i++) src[i] = (char)('a' + i % 26);
  src[n] = 0;
  memset(dst, 'x', n + 1);
  printf("%zu\n", emit(dst, src, n + 1));
  free(src);
  free(dst);
  return 0;
}
