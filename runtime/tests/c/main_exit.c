/* main ends with pthread_exit while a worker copies asynchronously: the
 * process must end when the worker does (POSIX: as if exit(0) were called
 * at the last thread's termination), not live on in libcopier's service
 * thread. The worker checks its bytes and exits the process with 1 on a
 * mismatch; the atexit handler prints "atexit" so the caller sees that
 * exit ran. The stage runs it under a timeout. */
#include <copier.h>
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 20)

static void at_exit_handler(void) { puts("atexit"); }

static void *worker(void *arg) {
  (void)arg;
  unsigned char *src = malloc(N), *dst = malloc(N);
  if (!src || !dst)
    exit(2);
  for (int round = 0; round < 20; round++) {
    pattern(src, N, (unsigned)round);
    amemcpy(dst, src, N);
    csync(dst, N);
    CHECK(memcmp(dst, src, N) == 0, "round %d: bytes differ", round);
  }
  free(src);
  free(dst);
  if (failures)
    exit(1);
  puts("worker done");
  return NULL;
}

int main(void) {
  atexit(at_exit_handler);
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0)
    return 2;
  pthread_exit(NULL);
}
