// Callee attributes decide: a const function (memory(none)) and a function
// that only reads its own argument memory, given an unrelated buffer, need
// (restrict) need no csync; a function that reads the destination does.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((const, noinline)) int square(int x) { return x * x; }

__attribute__((noinline)) int first_byte(const char *p) { return p[0]; }

__attribute__((noinline)) long use(char *restrict dst, const char *src, size_t n, const char *restrict other) {
  memcpy(dst, src, n);
  long s = square((int)n & 0xff);
  s += first_byte(other);
  s += first_byte(dst);
  return s;
}

int main(void) {
  size_t n = 20000;
  char *dst = malloc(n), *src = malloc(n), other[4] = {5, 0, 0, 0};
  memset(src, 7, n);
  printf("%ld\n", use(dst, src, n, other));
  free(dst);
  free(src);
  return 0;
}
