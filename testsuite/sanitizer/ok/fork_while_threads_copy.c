// The main thread forks FORKS times while one thread copies and syncs as
// fast as it can (the sanitizer's tracker lock) and another creates and
// joins threads (its thread-creation lock); a copy of the main thread's
// own is pending at each fork. Each child syncs and reads that copy, makes
// and syncs a copy of its own, and exits. Regression: a child forked while
// another thread held one of the sanitizer's locks hung at its first
// sanitizer call (only the forking thread exists in the child). The parent
// waits for each child for at most CHILD_SECONDS.
// TIMEOUT: 120
#include "../common.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { FORKS = 400, N = 16 * 1024, BN = 4 * 1024, CHILD_SECONDS = 10 };
static volatile int stop;

static void *copier_loop(void *p) {
  (void)p;
  char *src = filled(BN, 'b'), *dst = malloc(BN);
  while (!stop) {
    amemcpy(dst, src, BN);
    csync(dst, BN);
    use(dst[BN - 1]);
  }
  free(src);
  free(dst);
  return NULL;
}

static void *nothing(void *p) { return p; }

static void *creator_loop(void *p) {
  (void)p;
  while (!stop) {
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0)
      pthread_join(t, NULL);
  }
  return NULL;
}

/* waitpid with a deadline: 0 if the child exited 0, else 1 (killed if it
 * did not finish in time). */
static int reap(pid_t p, int i) {
  struct timespec nap = {0, 1000000};
  for (long waited = 0; waited < CHILD_SECONDS * 1000L; waited++) {
    int st = 0;
    pid_t r = waitpid(p, &st, WNOHANG);
    if (r == p) {
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
      fprintf(stderr, "child %d of fork %d: status %#x\n", (int)p, i, st);
      return 1;
    }
    if (r < 0) {
      perror("waitpid");
      return 1;
    }
    nanosleep(&nap, NULL);
  }
  fprintf(stderr, "child %d of fork %d hung\n", (int)p, i);
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
  return 1;
}

int main(void) {
  char *src = filled(N, 'a'), *dst = malloc(N);
  char *csrc = filled(N, 'c'), *cdst = malloc(N);
  pthread_t bg[2];
  pthread_create(&bg[0], NULL, copier_loop, NULL);
  pthread_create(&bg[1], NULL, creator_loop, NULL);
  int failed = 0;
  for (int i = 0; i < FORKS && !failed; i++) {
    amemcpy(dst, src, N);
    pid_t p = fork();
    if (p < 0) {
      perror("fork");
      failed = 1;
      break;
    }
    if (p == 0) {
      csync(dst, N);
      int ok = dst[N / 2] == src[N / 2];
      amemcpy(cdst, csrc, N);
      csync(cdst, N);
      ok = ok && memcmp(cdst, csrc, N) == 0;
      _exit(ok ? 0 : 2);
    }
    csync(dst, N);
    failed = reap(p, i);
  }
  stop = 1;
  pthread_join(bg[0], NULL);
  pthread_join(bg[1], NULL);
  if (!failed)
    printf("%d forks\n", FORKS);
  return failed;
}
