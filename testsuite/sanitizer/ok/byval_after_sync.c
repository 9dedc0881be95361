// A struct passed by value after the csync of its bytes (the copy into it
// complete), and a struct returned through sret into a buffer no copy uses
// while another copy is pending elsewhere: no report.
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
__attribute__((noinline)) static struct S make(long v) {
  struct S s;
  for (int i = 0; i < N; i++)
    s.a[i] = v + i;
  return s;
}
int main(void) {
  for (int i = 0; i < N; i++)
    g1.a[i] = i;
  amemcpy(&g2, &g1, sizeof g2);
  csync(&g2, sizeof g2);
  long t = sum(g2);
  char *src = filled(1 << 20, 'a'), *dst = malloc(1 << 20);
  amemcpy(dst, src, 1 << 20); /* pending while the sret call runs */
  struct S *r = malloc(sizeof *r);
  *r = make(t);
  t += sum(*r);
  csync_all();
  long t0 = (long)N * (N - 1) / 2;
  if (t != t0 + N * t0 + t0) {
    printf("wrong sum %ld\n", t);
    return 1;
  }
  use(t + dst[5]);
  free(r);
  free(src);
  free(dst);
  return 0;
}
