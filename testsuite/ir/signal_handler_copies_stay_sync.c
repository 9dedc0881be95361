// memcpy is async-signal-safe, amemcpy and csync are not (libcopier takes a
// lock and may call malloc: a handler that interrupted malloc would hang).
// Copies in signal handlers and in the functions they call stay memcpy,
// with a missed remark SignalHandler naming the handler:
//  - on_usr1, installed with signal();
//  - on_usr2, installed with sigaction() through sa_handler;
//  - on_info, installed with sigaction() through sa_sigaction (SA_SIGINFO);
//  - fill, called only from on_usr1 (kept);
//  - stash, called from on_usr2 and from main (kept: it may run in the
//    handler);
//  - unrelated, called only from main, is rewritten to amemcpy.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 65536
static char src[N], dst1[N], dst2[N], dst3[N], dst4[N];
static volatile size_t len = N;
static volatile unsigned sink;

__attribute__((noinline)) static unsigned work(unsigned seed) {
  unsigned h = seed;
  for (unsigned i = 0; i < 1000; i++)
    h = h * 33u + i;
  return h;
}

__attribute__((noinline)) static void fill(char *d, size_t n) {
  memcpy(d, src, n);
  sink = work(1) + (unsigned char)d[n - 1];
}

__attribute__((noinline)) void stash(char *d, size_t n) {
  memmove(d, src, n);
  sink = work(2) + (unsigned char)d[n / 2];
}

static void on_usr1(int sig) {
  memcpy(dst1, src, len);
  sink = work((unsigned)sig) + (unsigned char)dst1[7];
  fill(dst2, len);
}

static void on_usr2(int sig) {
  stash(dst3, len);
  sink = (unsigned)sig;
}

static void on_info(int sig, siginfo_t *info, void *uc) {
  (void)info;
  (void)uc;
  memcpy(dst4, src, len);
  sink = work((unsigned)sig) + (unsigned char)dst4[9];
}

__attribute__((noinline)) unsigned unrelated(char *d, size_t n) {
  memcpy(d, src, n);
  return work(3) + (unsigned char)d[n - 2];
}

int main(void) {
  for (size_t i = 0; i < N; i++)
    src[i] = (char)('a' + i % 26);
  signal(SIGUSR1, on_usr1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, NULL);
  struct sigaction si;
  memset(&si, 0, sizeof si);
  sigemptyset(&si.sa_mask);
  si.sa_sigaction = on_info;
  si.sa_flags = SA_SIGINFO;
  sigaction(SIGWINCH, &si, NULL);
  raise(SIGUSR1);
  raise(SIGUSR2);
  raise(SIGWINCH);
  char *d = malloc(N);
  stash(d, len);
  unsigned u = unrelated(d, len);
  printf("%c %c %c %c %c %u\n", dst1[7], dst2[N - 1], dst3[N / 2], dst4[9], d[N - 2], u & 0u);
  free(d);
  return 0;
}
