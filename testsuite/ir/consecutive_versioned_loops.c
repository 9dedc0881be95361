// CFLAGS: -O2
// Two copies, then two hash loops, the second entered straight from the
// first one's latch (no preheader of its own). Both loops get an unguarded
// copy (loop versioning); the second loop's bound on the addresses it reads
// is computed where it is entered, i.e. in the first loop's latch, which
// versioning duplicates. The bound must reach the second loop's dispatch
// from both copies of that latch (a PHI): it once came from the guarded
// copy only, IR the verifier rejects ("Instruction does not dominate all
// uses!") and on which clang's register allocator crashed (found by a user
// trial with `copiergen cc --sanitize -O2`).
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t h(const void *p, size_t n) {
  const unsigned char *c = p;
  uint64_t x = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    x ^= c[i];
    x *= 1099511628211ULL;
  }
  return x;
}

static char a[40000], b[40000], c[40000];

int main(int argc, char **argv) {
  (void)argv;
  memset(a, argc, sizeof a);
  a[7] = 5;
  memcpy(b, a, sizeof a);
  memcpy(c, b, sizeof b);
  printf("%016llx\n", (unsigned long long)(h(b, sizeof b) * 3 + h(c, sizeof c)));
  return 0;
}
