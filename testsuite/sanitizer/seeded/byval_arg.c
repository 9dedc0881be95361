// OPT-LEVELS: -O0 -O1 -O2
// A struct passed by value is read by the call itself (CodeGen copies a
// byval argument into the callee's argument area at the call site): passing
// a pending destination by value, before its csync, is a read-before-csync
// at the call line. At -O1/-O2 no load of the IR reads it (MemCpyOpt
// passes the global itself byval); only the call-site check sees it.
#include "../common.h"
#define N 8192 /* 64 KiB */
struct S { long a[N]; };
static struct S g1, g2;
__attribute__((noinline)) static long sum(struct S s) {
  long t = 0;
  for (int i = 0; i < N; i++)
    t += s.a[i];
  return t;
}
int main(void) {
  for (int i = 0; i < N; i++)
    g1.a[i] = i;
  amemcpy(&g2, &g1, sizeof g2);
  long t = sum(g2); /* BUG: read-before-csync */
  csync_all();
  use(t);
  return 0;
}
