/* byval_struct_argument.c: a struct passed by value (byval) right after the copy into its argument temporary; the call reads the temporary before the guarded callee runs (found by Redis built with --threshold1). */
#include <stdio.h>
#define N 8192 /* 64 KiB: above the default threshold */
struct S { long a[N]; };
struct S g1, g2;
__attribute__((noinline)) long use(struct S s) { long t = 0; for (int i = 0; i < N; i++) t += s.a[i]; return t; }
__attribute__((noinline)) long pick(int k) { return use(k ? g1 : g2); }
int main(void) {
  for (int i = 0; i < N; i++) { g1.a[i] = 1; g2.a[i] = 2; }
  long t = 0;
  for (int i = 0; i < 2000; i++) t += pick(i & 1);
  printf("%ld (expect %ld)\n", t, 1000L * N * 3);
  return 0;
}
