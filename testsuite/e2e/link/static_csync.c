// A file-local `static int csync` cannot clash with libcopier (internal
// linkage): no conflict warning, and the 1 MiB copy still goes
// asynchronous (the pass renames the local variable to declare `csync`).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int csync = 42;

__attribute__((noinline)) static unsigned long sum(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  size_t n = 1 << 20;
  unsigned char *a = malloc(n), *b = malloc(n);
  if (!a || !b)
    return 1;
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 5);
  csync += argc; // kept a variable at -O2 too
  memcpy(b, a, n);
  printf("%lu %d\n", sum(b, n), csync);
  free(a);
  free(b);
  return 0;
}
