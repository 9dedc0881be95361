// The program defines a libcopier name itself: a global variable `csync`.
// With plain clang it links and runs; copiergen cc must warn ("every copy
// of the module stays synchronous") and build the same program, not fail
// with "multiple definition of `csync'" (libcopier.a is one object that
// defines every entry point, so it must not be pulled in).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int csync = 42;

__attribute__((noinline)) static unsigned long sum(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return s;
}

int main(void) {
  size_t n = 1 << 20;
  unsigned char *a = malloc(n), *b = malloc(n);
  if (!a || !b)
    return 1;
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 7);
  memcpy(b, a, n);
  printf("%lu %d\n", sum(b, n), csync);
  free(a);
  free(b);
  return 0;
}
