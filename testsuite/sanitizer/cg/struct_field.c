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
  return m->tail; /* BUG: read-before-csync */
}
int main(void) {
  struct msg *in = calloc(1, sizeof *in), *m = malloc(sizeof *m);
  in->tail = 42;
  printf("%ld\n", parse(m, in));
  free(in);
  free(m);
  return 0;
}
