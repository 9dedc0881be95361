/* A completion handler on the service thread (A) waits for another
 * thread's handler (fnB). Thread B submits a plain copy P, then a copy H
 * with handler fnB, and csyncs both: with the service inside A, B executes
 * both copies itself. fnB is queued once P and H are retired, so B must
 * retire P itself rather than leave it to the service thread, which is
 * stuck in A (before the fix: fnB ran only after A gave up). Every wait is
 * bounded; exit 0 and "ok" on success. */
#include <copier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define S 65536
static atomic_int a_started, b_ran, a_gave_up;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* wait up to ms for *flag; true when it was set */
static int wait_flag(atomic_int *flag, double ms) {
  double end = now_ms() + ms;
  while (!*flag) {
    if (now_ms() > end)
      return 0;
    usleep(100);
  }
  return 1;
}

static void fn_a(void *p) {
  (void)p;
  a_started = 1;
  if (!wait_flag(&b_ran, 5000))
    a_gave_up = 1;
}
static void fn_b(void *p) { (void)p; b_ran = 1; }

static void *thread_b(void *arg) {
  int *ok = arg;
  unsigned char *sp = malloc(S), *dp = malloc(S), *sh = malloc(S), *dh = malloc(S);
  memset(sp, 1, S);
  memset(sh, 2, S);
  amemcpy(dp, sp, S);
  amemcpy_handler(dh, sh, S, fn_b, NULL);
  csync(dp, S);
  csync(dh, S);
  *ok = dp[0] == 1 && dp[S - 1] == 1 && dh[0] == 2 && dh[S - 1] == 2;
  /* fnB runs soon after both csyncs, while A still waits for it */
  if (!wait_flag(&b_ran, 2000))
    *ok = 0;
  return NULL;
}

int main(void) {
  size_t n = 1 << 20;
  unsigned char *s0 = malloc(n), *d0 = malloc(n);
  memset(s0, 3, n);
  amemcpy_handler(d0, s0, n, fn_a, NULL);
  /* the service (or, without one, this thread's csync) runs fn_a */
  if (!wait_flag(&a_started, 1000)) {
    csync(d0, n); /* no service thread: fn_a runs here, gives up after 5 s */
  }
  int ok = 0;
  pthread_t t;
  pthread_create(&t, NULL, thread_b, &ok);
  pthread_join(t, NULL);
  csync_all();
  if (d0[0] != 3 || d0[n - 1] != 3) {
    fprintf(stderr, "the first copy is incomplete\n");
    return 1;
  }
  if (!ok || a_gave_up) {
    fprintf(stderr, "thread B's handler did not run while the service sat in another handler (ok=%d, a_gave_up=%d)\n", ok, (int)a_gave_up);
    return 1;
  }
  printf("ok\n");
  return 0;
}
