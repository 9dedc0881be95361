// A large struct passed by value right after a copy into its temporary
// (`use(k ? g1 : g2)`: clang copies the chosen global into an argument
// temporary, passed `byval`): the call itself reads the temporary, before
// the callee runs, so the caller waits for those bytes before the call,
// even though use() is guarded (found by Redis built with --threshold1:
// pubsubPublishMessageInternal got a 56-byte struct by value). Also a
// struct returned through `sret` into a buffer a pending copy reads, and a
// const callee (memory(none): its attribute says nothing of the call
// site's own copy of the argument).
#include <stdio.h>
#define N 8192 /* 64 KiB: above the default threshold */
struct S {
  long a[N];
};
struct S g1, g2;

__attribute__((noinline)) long use(struct S s) {
  long t = 0;
  for (int i = 0; i < N; i++)
    t += s.a[i];
  return t;
}

__attribute__((noinline, const)) long ends(struct S s) { return s.a[0] + s.a[N - 1]; }

__attribute__((noinline)) long pick(int k) { return use(k ? g1 : g2); }

__attribute__((noinline)) long pick_const(int k) { return ends(k ? g2 : g1); }

__attribute__((noinline)) struct S make(long v) {
  struct S s;
  for (int i = 0; i < N; i++)
    s.a[i] = v + i;
  return s;
}

static struct S out;

__attribute__((noinline)) long remake(struct S *tmp, long v) {
  out = *tmp;      // copy out of *tmp ...
  *tmp = make(v);  // ... then make() writes *tmp through sret
  return out.a[N - 1] + tmp->a[0];
}

int main(void) {
  for (int i = 0; i < N; i++) {
    g1.a[i] = 1;
    g2.a[i] = 2;
  }
  long t = 0;
  for (int i = 0; i < 200; i++)
    t += pick(i & 1) + pick_const(i & 1);
  printf("%ld (expect %ld)\n", t, 100L * N * 3 + 200L * 3);
  static struct S tmp;
  long u = 0;
  for (int i = 0; i < 10; i++)
    u += remake(&tmp, i);
  printf("%ld\n", u);
  return 0;
}
