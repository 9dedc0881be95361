// The destination is a select of two buffers; the source too. Reads through
// either buffer after the copy are synced.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long swap_in(char *a, char *b, const char *s1, const char *s2, size_t n, int c) {
  memcpy(c ? a : b, c ? s1 : s2, n);
  return (long)a[10] * 1000 + b[20];
}

int main(void) {
  size_t n = 30000;
  char *a = calloc(n, 1), *b = calloc(n, 1), *s1 = malloc(n), *s2 = malloc(n);
  memset(s1, 3, n);
  memset(s2, 4, n);
  printf("%ld ", swap_in(a, b, s1, s2, n, 1));
  printf("%ld\n", swap_in(a, b, s1, s2, n, 0));
  free(a);
  free(b);
  free(s1);
  free(s2);
  return 0;
}
