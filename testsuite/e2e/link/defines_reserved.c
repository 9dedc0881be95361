// The program defines one of libcopier's reserved symbols, a variable
// `__copier_csync` (identifiers with two leading underscores are reserved
// for the implementation). With plain clang it links and runs; copiergen cc
// warns ("the module defines '__copier_csync' itself"), keeps every copy
// synchronous and builds the program clang builds; an -flto link of its
// object alone, which must force libcopier in, is refused with an error
// naming the symbol.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __copier_csync = 42;

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
  printf("%lu %d\n", sum(b, n), __copier_csync);
  free(a);
  free(b);
  return 0;
}
