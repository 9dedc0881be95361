// EXPECT-ASYNC: no
// A program that defines its own memcpy (tracing, freestanding code, a
// custom libc) keeps every copy on it: the struct copy is llvm.memcpy,
// which code generation lowers to a call of the program's memcpy, and the
// variable-length memmove would make libcopier copy with the program's
// routine from its service thread. Both stay as they are (missed remark
// ProgramCopyRoutine); the call count printed is the plain build's.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

long memcpy_calls;

void *memcpy(void *d, const void *s, size_t n) {
  memcpy_calls++;
  char *dd = d;
  const char *ss = s;
  while (n--)
    *dd++ = *ss++;
  return d;
}

struct big {
  char b[100000];
};

__attribute__((noinline)) long copy_struct(struct big *x, struct big *y) {
  *x = *y;
  long t = 0;
  for (int i = 0; i < 100000; i++) t += x->b[i];
  return t;
}

__attribute__((noinline)) long shift(char *buf, size_t n) {
  __builtin_memmove(buf + 1, buf, n - 1);
  long t = 0;
  for (size_t i = 0; i < n; i++) t += buf[i] * (long)i;
  return t;
}

int main(void) {
  struct big *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  b->b[5] = 3;
  long t = 0;
  for (int i = 0; i < 5; i++) t += copy_struct(a, b);
  t += shift(a->b, sizeof a->b);
  printf("t=%ld memcpy_calls=%ld\n", t, memcpy_calls);
  free(a);
  free(b);
  return 0;
}
