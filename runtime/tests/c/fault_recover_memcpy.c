/* An unmodified program that recovers from a faulting memcpy with
 * sigsetjmp/siglongjmp, built with copiergen (the memcpy becomes amemcpy and
 * the pass places the csync): it must behave as the plain build, i.e. fault
 * once, print "recovered" once, keep the destination as it was, and exit 0
 * (before: the exit drain re-executed the copy and deadlocked).
 * argv[1] given: copy from a PROT_NONE mapping; none: a good copy. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static sigjmp_buf jb;
static void onsegv(int s) {
  (void)s;
  siglongjmp(jb, 1);
}
#define N (1 << 20)
int main(int argc, char **argv) {
  (void)argv;
  signal(SIGSEGV, onsegv);
  char *dst = malloc(N), *src = malloc(N);
  memset(src, 'a', N);
  memset(dst, 'b', N);
  char *bad = mmap(0, N, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const char *from = argc > 1 ? bad : src;
  static volatile int faults = 0;
  if (sigsetjmp(jb, 1) == 0) {
    memcpy(dst, from, N);
    unsigned long h = 0;
    for (int i = 0; i < N; i++) h += src[i] * i;
    if (h == 7) puts("?");
  } else {
    faults++;
    puts("recovered");
    fflush(stdout);
    if (faults > 3) {
      puts("LOOP");
      return 3;
    }
  }
  printf("faults=%d dst[0]=%c\n", faults, dst[0]);
  return 0;
}
