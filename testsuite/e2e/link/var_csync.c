// The program defines a public libcopier name itself: a global variable
// `csync`. libcopier's `csync` is weak and the pass calls `__copier_csync`:
// copiergen cc builds it without a warning, the 1 MiB copy goes
// asynchronous, and it prints what clang's build prints (no "multiple
// definition of `csync'").
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
