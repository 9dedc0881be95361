// Threads that each copy a buffer (CopierGen turns the memcpy into an
// asynchronous copy) and check it at once, started again and again: one
// thread's csync_all (CopierGen's, before each free) must not end the
// sanitizer's tracking of a copy another thread is still submitting (a
// trial found bytes read before they were copied, in 1-11% of runs of one
// round, with no report; the sanitizer's count of pending copies had
// fallen to 0, and instrumented reads skip their waits at 0; this program
// failed in 3 of 10 runs before the fix, mostly in its first rounds).
// TIMEOUT: 120
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad;

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  size_t n = 64 * 1024 + (size_t)id * 4096;
  char *a = malloc(n), *b = malloc(n);
  for (int it = 0; it < 8; it++) {
    for (size_t i = 0; i < n; i += 64)
      a[i] = (char)(i + id + it);
    memcpy(b, a, n);
    for (size_t i = 0; i < n; i += 64)
      if (b[i] != (char)(i + id + it)) {
        fprintf(stderr, "thread %d round %d: byte %zu is %d, want %d\n", id, it, i, b[i], (char)(i + id + it));
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        break;
      }
  }
  free(a);
  free(b);
  return NULL;
}

int main(void) {
  for (int round = 0; round < 500 && !bad; round++) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
      pthread_join(t[i], NULL);
  }
  printf("wrong=%d\n", bad);
  return bad != 0;
}
