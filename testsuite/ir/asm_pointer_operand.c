// Inline asm that dereferences a pointer operand without a "memory"
// clobber: the compiler sees no memory access, but the asm reads the
// destination, so the copy is synced whole before it. (x86-64 asm.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int peek(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  int v;
  __asm__ volatile("movsbl (%1), %0" : "=r"(v) : "r"(dst + 7));
  return v;
}

int main(void) {
  size_t n = 30000;
  char *dst = calloc(n, 1), *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i + 3);
  printf("%d\n", peek(dst, src, n));
  free(dst);
  free(src);
  return 0;
}
