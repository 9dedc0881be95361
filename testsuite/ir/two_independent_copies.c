// Two copies into distinct fresh buffers: reading the first syncs only the
// bytes read (the second stays pending until its own use).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long both(const char *s1, const char *s2, size_t n) {
  char *a = malloc(n), *b = malloc(n);
  memcpy(a, s1, n);
  memcpy(b, s2, n);
  long r = a[5];
  r = r * 100 + b[7];
  free(a);
  free(b);
  return r;
}

int main(void) {
  size_t n = 25000;
  char *s1 = malloc(n), *s2 = malloc(n);
  memset(s1, 1, n);
  memset(s2, 2, n);
  printf("%ld\n", both(s1, s2, n));
  free(s1);
  free(s2);
  return 0;
}
