// A SIGALRM handler that interrupted malloc submits a copy and returns
// without its csync; the main code then reads the copy's destination:
// read-before-csync at the main code's read. (The handler's submit was
// queued for the tracker, which takes it at the read's report path.)
// TIMEOUT: 60
#include "../common.h"
#include <signal.h>
#include <sys/time.h>

enum { HN = 32 * 1024 };
static char hsrc[HN], hdst[HN];
static volatile sig_atomic_t in_malloc, copied;

static void on_alarm(int sig) {
  (void)sig;
  if (in_malloc && !copied) {
    amemcpy(hdst, hsrc, HN);
    copied = 1;
  }
}

int main(void) {
  char *a = filled(HN, 'a'), *b = malloc(HN);
  amemcpy(b, a, HN); /* libcopier's first copy: outside any handler */
  csync(b, HN);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &it, NULL);
  for (long i = 0; !copied; i++) {
    in_malloc = 1;
    __asm__ volatile("" ::: "memory");
    void *p = malloc(64 + (size_t)(i % 4096) * 64);
    use((long)p);
    free(p);
    __asm__ volatile("" ::: "memory");
    in_malloc = 0;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  use(hdst[100]); /* BUG: read-before-csync */
  csync(hdst, HN);
  return 0;
}
