// CopierGen rewrites the struct copy and syncs the field before its read.
// Seeded: with CopierGen's csync calls deleted, the read is reported.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct msg {
  char hdr[64];
  char body[60000];
  long tail;
};
__attribute__((noinline)) long parse(struct msg *m, const struct msg *in) {
  memcpy(m, in, sizeof *m);
  size_t n = sizeof in->body;
  /* copy-use window: independent work that touches neither buffer */
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i++)
    sum = sum * 31 + (i ^ (i >> 3));
  return m->tail + (long)(sum == 7); /* BUG: read-before-csync */
}
int main(void) {
  struct msg *in = calloc(1, sizeof *in), *m = malloc(sizeof *m);
  in->tail = 42;
  printf("%ld\n", parse(m, in));
  free(in);
  free(m);
  return 0;
}
