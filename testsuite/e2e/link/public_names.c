// The program defines public libcopier names with other types: a function
// `amemcpy(int)` and a variable `csync`. They are the program's own:
// copiergen cc builds the program clang builds, without a warning, and its
// copy goes asynchronous (see var_csync.c).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *amemcpy(int x) {
  static char b[4];
  b[0] = (char)x;
  return b;
}
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
    a[i] = (unsigned char)(i * 3);
  memcpy(b, a, n);
  printf("%lu %d %d\n", sum(b, n), csync, ((char *)amemcpy(5))[0]);
  free(a);
  free(b);
  return 0;
}
