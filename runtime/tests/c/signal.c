/* Signal handlers that call libcopier while the interrupted thread is inside
 * it. A memcpy in a signal handler is async-signal-safe, and CopierGen turns
 * one into amemcpy + csync, so a handler must be able to submit and wait
 * while the thread it interrupted is halfway through a submit, a csync or a
 * csync_all. A 50 us interval timer fires SIGALRM during a loop of copies
 * and csyncs (and, with "bg", a second thread that copies too).
 *
 * usage: signal MODE ITERS [bg]
 *   copy     handler: amemcpy of 64 KiB + csync, checks the bytes
 *   handler  handler: amemcpy_handler + csync; every handler runs exactly once
 *   all      handler: csync_all
 * Before the fix: "copy" and "handler" hung (the handler's csync waited for
 * the tracker lock its own thread held), or a copy of the main loop was lost
 * (the handler's submit reused the slot the interrupted submit was filling).
 * Exit 0 and one line "ok ..." on success.
 * Known limit (not tested): a handler's waiting csync may allocate, so a
 * signal that interrupts malloc can deadlock in malloc; every allocation
 * (and each thread's first copy, which registers it) happens here before
 * the timer starts. */
#include <copier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define HN (64 << 10)
static unsigned char hs[HN], hd[HN];
static volatile sig_atomic_t mode;
/* atomic: the timer's SIGALRM may run the handler on both threads at once */
static atomic_long nsig;
static atomic_long handlers_run;

static void count(void *arg) {
  (void)arg;
  atomic_fetch_add(&handlers_run, 1);
}

static void on_alarm(int s) {
  (void)s;
  if (mode == 2) {
    csync_all();
  } else {
    if (mode == 1)
      amemcpy_handler(hd, hs, HN, count, NULL);
    else
      amemcpy(hd, hs, HN);
    csync(hd, HN);
    if (memcmp(hd, hs, HN) != 0) {
      static const char m[] = "signal handler: copy not complete after csync\n";
      (void)!write(2, m, sizeof m - 1);
      _exit(3);
    }
  }
  atomic_fetch_add(&nsig, 1);
}

static atomic_int stop, bg_ready;
static unsigned char *bga, *bgb;
static void *bg(void *arg) {
  (void)arg;
  size_t n = 1 << 20;
  unsigned char *a = bga, *b = bgb;
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 5 + 1);
  amemcpy(b, a, n); /* registers this thread before the timer starts */
  csync(b, n);
  atomic_store(&bg_ready, 1);
  while (!atomic_load(&stop)) {
    amemcpy(b, a, n);
    csync(b, n);
    if (memcmp(a, b, n) != 0) {
      fprintf(stderr, "bg: mismatch\n");
      exit(1);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: signal copy|handler|all ITERS [bg]\n");
    return 2;
  }
  mode = !strcmp(argv[1], "handler") ? 1 : !strcmp(argv[1], "all") ? 2 : 0;
  long iters = atol(argv[2]);
  for (int i = 0; i < HN; i++)
    hs[i] = (unsigned char)(i * 7 + 3);
  size_t n = 1 << 20;
  unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n);
  bga = malloc(n);
  bgb = malloc(n);
  if (!a || !b || !c || !bga || !bgb)
    return 2;
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 13 + 1);
  amemcpy(b, a, n); /* registers this thread, starts the service */
  csync(b, n);
  pthread_t t;
  int with_bg = argc > 3;
  if (with_bg && pthread_create(&t, NULL, bg, NULL) != 0)
    return 2;
  while (with_bg && !atomic_load(&bg_ready))
    ;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &it, NULL);

  for (long i = 0; i < iters; i++) {
    size_t off = (size_t)(i & 4095);
    amemcpy(b, a, n);
    amemcpy(c + off, b, n - 4096);
    if (i % 3 == 0)
      csync_all();
    else
      csync(c, n);
    if (memcmp(c + off, a, n - 4096) != 0) {
      fprintf(stderr, "iteration %ld: main loop copy lost\n", i);
      return 1;
    }
    amemcpy_lazy(b, c, 20000);
    csync(b, 100);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  atomic_store(&stop, 1);
  if (with_bg)
    pthread_join(t, NULL);
  /* a SIGALRM still pending from before the disarm must not run between the
   * two counter reads below */
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alrm, NULL);
  csync_all();
  if (mode == 1 && atomic_load(&handlers_run) != atomic_load(&nsig)) {
    fprintf(stderr, "handlers run %ld, signals %ld\n", atomic_load(&handlers_run), atomic_load(&nsig));
    return 1;
  }
  if (atomic_load(&nsig) == 0) {
    fprintf(stderr, "no signal arrived\n");
    return 1;
  }
  printf("ok signals=%ld\n", atomic_load(&nsig));
  free(a);
  free(b);
  free(c);
  free(bga);
  free(bgb);
  return 0;
}
