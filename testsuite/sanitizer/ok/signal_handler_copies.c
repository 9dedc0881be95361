// A SIGALRM handler (setitimer, every 100 us) copies its own buffers with
// amemcpy + csync and checks the bytes, while the main code copies and
// syncs buffers of its own in a loop (phase 0), then also mallocs and
// frees in it (phase 1), then only mallocs and frees (phase 2). Each phase
// runs until enough signals landed in the main code's copy calls
// (libcopier and the sanitizer, which may hold its tracker lock) or in
// malloc/free. Regression: the handler's amemcpy re-took the tracker lock
// its own thread held, or called malloc inside malloc: the program hung.
// In phase 2, BURSTS times, a handler that interrupted malloc also submits
// BURST copies before it syncs them, more events than the sanitizer's
// queue holds: the submits it cannot queue must still copy, and the syncs
// it loses must not leave copies pending (the main code reads the bytes
// after each burst).
// TIMEOUT: 60
#include "../common.h"
#include <signal.h>
#include <sys/time.h>

enum { HN = 32 * 1024, MN = 32 * 1024, BUFS = 4, ENOUGH = 200, BURST = 600, CH = 256, BURSTS = 20 };
static char hsrc[HN], hdst[HN], bsrc[BURST * CH], bdst[BURST * CH];
/* a burst is wanted; bursts done */
static volatile sig_atomic_t burst, bursts;
/* where the main code is: 1 in a copy call, 2 in malloc or free */
static volatile sig_atomic_t where;
static volatile sig_atomic_t handled, bad, landed[3];

static void on_alarm(int sig) {
  (void)sig;
  char k = (char)handled;
  for (int i = 0; i < HN; i += 64)
    hsrc[i] = (char)(k + i / 64);
  amemcpy(hdst, hsrc, HN);
  csync(hdst, HN);
  for (int i = 0; i < HN; i += 64)
    if (hdst[i] != (char)(k + i / 64))
      bad = 1;
  if (burst && where == 2) {
    for (int i = 0; i < BURST; i++) {
      bsrc[i * CH] = (char)(bursts + i);
      amemcpy(bdst + i * CH, bsrc + i * CH, CH);
    }
    for (int i = 0; i < BURST; i++) {
      csync(bdst + i * CH, CH);
      if (bdst[i * CH] != (char)(bursts + i))
        bad = 3;
    }
    burst = 0;
    bursts = bursts + 1;
  }
  landed[where] = landed[where] + 1;
  handled = handled + 1;
}

#define AT(w, call)                                                            \
  do {                                                                         \
    where = (w);                                                               \
    __asm__ volatile("" ::: "memory");                                         \
    call;                                                                      \
    __asm__ volatile("" ::: "memory");                                         \
    where = 0;                                                                 \
  } while (0)

int main(void) {
  char *src[BUFS], *dst[BUFS];
  for (int b = 0; b < BUFS; b++) {
    src[b] = filled(MN, (char)('a' + b));
    dst[b] = malloc(MN);
  }
  /* libcopier allocates its thread's queue at the first asynchronous copy:
     not in a handler that may have interrupted malloc */
  amemcpy(dst[0], src[0], MN);
  csync(dst[0], MN);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &it, NULL);
  long iters = 0;
  for (int phase = 0; phase < 3; phase++) {
    int copy_target = landed[1] + (phase == 0 ? ENOUGH : 0);
    int malloc_target = landed[2] + (phase > 0 ? ENOUGH : 0);
    while (landed[1] < copy_target || landed[2] < malloc_target || (phase == 2 && bursts < BURSTS)) {
      if (phase == 2 && !burst) {
        /* the last burst's bytes, synced in the handler */
        if (memcmp(bdst, bsrc, sizeof bdst) != 0)
          bad = 4;
        if (bursts < BURSTS)
          burst = 1;
      }
      int b = (int)(iters % BUFS);
      void *p = NULL;
      if (phase < 2) {
        src[b][iters % MN] = (char)iters;
        AT(1, amemcpy(dst[b], src[b], MN));
      }
      if (phase > 0)
        AT(2, p = malloc(64 + (size_t)(iters % 4096) * 64); use((long)p));
      if (phase < 2) {
        AT(1, csync(dst[b], MN));
        if (dst[b][iters % MN] != (char)iters || memcmp(dst[b], src[b], MN) != 0)
          bad = 2;
      }
      AT(2, free(p));
      iters++;
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("%d signals (%d in copy calls, %d in malloc/free), %ld iterations, bad %d\n", (int)handled, (int)landed[1],
         (int)landed[2], iters, (int)bad);
  return bad != 0;
}
