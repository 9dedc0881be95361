// The program's own functions named like libcopier's public API: a
// checksum `csync`, a `csync_all` and an `amemcpy` of its own, in a file
// of their own (see main.c).
#include <stddef.h>
#include <string.h>

unsigned long csync_sum = 0;
int csync_all_calls = 0;

void csync(const void *p, unsigned long n) {
  const unsigned char *b = p;
  for (unsigned long i = 0; i < n; i++)
    csync_sum = csync_sum * 31 + b[i];
}

void csync_all(void) { csync_all_calls++; }

void *amemcpy(void *d, const void *s, size_t n) {
  // A copy that reverses its bytes: unlike libcopier's.
  unsigned char *o = d;
  const unsigned char *i = s;
  for (size_t k = 0; k < n; k++)
    o[k] = i[n - 1 - k];
  return d;
}
