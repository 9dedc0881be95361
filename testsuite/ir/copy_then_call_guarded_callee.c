// Copy then a call to a function of the same module that reads the
// destination: the callee is guarded (it waits for whatever its callers
// left pending before touching memory it does not own: windowed guards in
// its loop, csync_all before calls that might touch it), so the caller does
// not wait for the whole copy before the call, and the parse overlaps the
// copy. checksum() is guarded one level deeper (parse passes it pointers).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static unsigned checksum(const unsigned char *p, size_t n) {
  unsigned h = 0;
  for (size_t i = 0; i < n; i++) h = h * 33 + p[i];
  return h;
}

__attribute__((noinline)) static long parse(const char *buf, size_t n, unsigned *sum) {
  long fields = 0;
  for (size_t i = 0; i < n; i++)
    if (buf[i] == ',')
      fields++;
  *sum = checksum((const unsigned char *)buf, n / 2);
  return fields;
}

__attribute__((noinline)) long receive(char *msg, const char *wire, size_t n, unsigned *sum) {
  memcpy(msg, wire, n);
  long f = parse(msg, n, sum);
  return f + msg[n - 1];
}

int main(void) {
  size_t n = 200000;
  char *wire = malloc(n), *msg = malloc(n);
  for (size_t i = 0; i < n; i++) wire[i] = (i % 7 == 6) ? ',' : (char)('a' + i % 26);
  unsigned sum = 0;
  long f = receive(msg, wire, n, &sum);
  printf("%ld %u\n", f, sum);
  free(wire);
  free(msg);
  return 0;
}
