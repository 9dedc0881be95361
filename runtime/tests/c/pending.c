/* The pending word compiled programs read before their guards
 * (__copier_pending, copier_abi::symbols::PENDING): 0 before any copy,
 * non-zero from an asynchronous copy's submit until it is waited for, and 0
 * again after csync_all (the own hold is released there). Built as a PIE, as
 * a non-PIE executable (the word then lives in the executable through a copy
 * relocation, and libcopier must publish to that copy) and statically.
 * "strict" (run it under COPIER_OPTIONS=spawn=0, where a copy stays pending
 * until a wait executes it) also checks that the word is set right after the
 * submit and cleared by csync_all; with a service thread the copy may already
 * be retired and the hold released right after the submit, and the word
 * falls to 0 only once the service retired it and went idle. Exit 0 on
 * success. */
#include <copier.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const volatile size_t __copier_pending;

#define N (4u << 20)

int main(int argc, char **argv) {
  int strict = argc > 1 && !strcmp(argv[1], "strict");
  unsigned char *src = malloc(N), *dst = malloc(N);
  int bad = 0;
  memset(src, 0x5a, N);
  memset(dst, 0, N);
  if (__copier_pending != 0) {
    fprintf(stderr, "pending word is %zu before any copy\n", __copier_pending);
    bad = 1;
  }
  /* below the threshold: inline, nothing pending */
  amemcpy(dst, src, 64);
  if (__copier_pending != 0) {
    fprintf(stderr, "pending word is %zu after an inline copy\n", __copier_pending);
    bad = 1;
  }
  for (int round = 0; round < 3; round++) {
    amemcpy(dst, src, N);
    if (strict && __copier_pending == 0) {
      fprintf(stderr, "round %d: pending word is 0 right after a 4 MiB amemcpy\n", round);
      bad = 1;
    }
    csync_all();
    if (strict && __copier_pending != 0) {
      fprintf(stderr, "round %d: pending word is %zu after csync_all\n", round, __copier_pending);
      bad = 1;
    }
    /* With a service thread the hold is released once the service has
     * retired the task and gone idle: the word must fall to 0 by itself
     * (else every guard would call the runtime from then on). */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__copier_pending != 0) {
      sched_yield();
      clock_gettime(CLOCK_MONOTONIC, &t);
      if (t.tv_sec - t0.tv_sec > 10) {
        fprintf(stderr, "round %d: pending word still set 10 s after csync_all\n", round);
        return 1;
      }
    }
    if (memcmp(dst, src, N) != 0) {
      fprintf(stderr, "round %d: copy incomplete\n", round);
      bad = 1;
    }
    dst[0] = 0;
  }
  if (!bad)
    printf("pending word: 0 -> %s -> 0 over 3 rounds\n", strict ? "set" : "(any)");
  return bad;
}
