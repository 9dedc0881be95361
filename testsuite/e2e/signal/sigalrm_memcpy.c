/* sigalrm_memcpy.c: a SIGALRM handler that copies 64 KiB with memcpy (which
 * POSIX lists as async-signal-safe) while the main loop allocates, copies
 * and frees. Built with CopierGen, the handler's memcpy must stay memcpy:
 * amemcpy/csync take the runtime's lock and may call malloc, so a handler
 * that interrupted malloc would wait forever for glibc's arena lock.
 *
 * usage: sigalrm_memcpy [TICKS] (default 300): runs until the handler has
 * run TICKS times (100 us interval timer), prints one "ok" line. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define HN (64 << 10)
static unsigned char hsrc[HN], hdst[HN];
static unsigned char scratch[4096];
static volatile sig_atomic_t ticks;
static volatile sig_atomic_t bad;

/* Work between the copy and the read of its destination, so CopierGen's
 * cost model would make the copy asynchronous if the handler were not a
 * signal handler. */
static unsigned mix(unsigned seed) {
  unsigned h = seed;
  for (size_t i = 0; i < sizeof scratch; i++) {
    scratch[i] = (unsigned char)(scratch[i] * 31u + h);
    h = h * 33u + scratch[i];
  }
  return h;
}

static void on_alarm(int sig) {
  hsrc[ticks % HN] = (unsigned char)ticks;
  memcpy(hdst, hsrc, HN);
  unsigned h = mix((unsigned)sig);
  if (hdst[ticks % HN] != (unsigned char)ticks || hdst[HN - 1] != hsrc[HN - 1])
    bad = 1;
  scratch[0] ^= (unsigned char)h;
  ticks++;
}

/* Reads the copy back: not inlined, so the copy stays a copy. */
__attribute__((noinline)) static unsigned long sample(const unsigned char *p, size_t len) {
  return p[0] + p[len / 2] + p[len - 1];
}

int main(int argc, char **argv) {
  long want = argc > 1 ? atol(argv[1]) : 300;
  for (size_t i = 0; i < HN; i++)
    hsrc[i] = (unsigned char)(i * 7 + 1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) != 0) {
    perror("sigaction");
    return 2;
  }
  struct itimerval tv = {{0, 100}, {0, 100}};
  if (setitimer(ITIMER_REAL, &tv, NULL) != 0) {
    perror("setitimer");
    return 2;
  }
  size_t n = 256 << 10;
  unsigned char *big = malloc(n);
  for (size_t i = 0; i < n; i++)
    big[i] = (unsigned char)(i * 13 + 5);
  unsigned long sum = 0, expect = 0, rounds = 0;
  unsigned local[256] = {0};
  while (ticks < want) {
    size_t len = (16 << 10) + (rounds * 4099) % (n - (16 << 10));
    unsigned char *p = malloc(len);
    unsigned char *q = malloc(len / 2 + 1);
    if (!p || !q)
      return 2;
    /* Asynchronous under CopierGen: work follows before the reads. */
    memcpy(p, big, len);
    memcpy(q, big + len / 2, len / 2 + 1);
    for (unsigned i = 0; i < 256; i++)
      local[i] = local[i] * 33u + i + (unsigned)rounds;
    sum += sample(p, len) + sample(q, len / 2 + 1);
    expect += sample(big, len) + sample(big + len / 2, len / 2 + 1);
    free(q);
    free(p);
    rounds++;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  free(big);
  if (sum != expect) {
    fprintf(stderr, "main loop: copies differ from their source\n");
    return 1;
  }
  if (bad) {
    fprintf(stderr, "handler saw an incomplete copy\n");
    return 1;
  }
  printf("ok: %ld ticks, main loop copies matched (%u)\n", (long)want, local[7] & 0u);
  return 0;
}
