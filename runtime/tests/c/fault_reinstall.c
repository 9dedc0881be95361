/* A test-harness pattern: each case installs its own SIGSEGV handler
 * (siglongjmp recovery), makes a copy from a PROT_NONE page, recovers, and
 * restores the previous handler. From the second case on the program's
 * handler has replaced libcopier's (installed at the first asynchronous
 * copy), so libcopier must put its own back in front before it runs the
 * copies submitted after that (the program's handler still gets the fault,
 * once per case). A good copy is pending next to each bad one; it must be
 * complete after its csync.
 * Before the fix: case 1 "good copy incomplete after csync" (the fault went
 * straight to the program's handler, which jumped out of the runtime's
 * executor and left its claim and "entered" flag behind: later csyncs
 * returned at once). With argument "signal" each case installs its
 * handler with signal() instead of sigaction() (libcopier learns of both
 * through its interposers). Exit 0 and "ok" on success. */
#include <copier.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf jb;
static volatile sig_atomic_t faults;
static void onsegv(int s) {
  (void)s;
  faults++;
  siglongjmp(jb, 1);
}

int main(int argc, char **argv) {
  int use_signal = argc > 1 && strcmp(argv[1], "signal") == 0;
  size_t n = 1 << 20;
  unsigned char *good = malloc(n), *dst = malloc(n), *d2 = malloc(n);
  unsigned char *bad = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!good || !dst || !d2 || bad == MAP_FAILED)
    return 2;
  memset(good, 3, n);
  int cases = 8, copier_seen = 0;
  for (int r = 0; r < cases; r++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onsegv;
    if (use_signal) {
      /* (signal() gives SA_RESTART | SA_NODEFER-less BSD semantics; the
       * handler leaves by siglongjmp, which restores the mask) */
      sigaction(SIGSEGV, NULL, &old);
      signal(SIGSEGV, onsegv);
    } else {
      sigaction(SIGSEGV, &sa, &old);
    }
    memset(d2, 0, n);
    amemcpy(d2, good, n); /* a good copy pending too */
    if (sigsetjmp(jb, 1) == 0) {
      amemcpy(dst, bad, n);
      if (r & 1)
        csync_all();
      else
        csync(dst, n);
      fprintf(stderr, "case %d: no fault\n", r);
      return 1;
    }
    if (r % 3 == 2)
      sigaction(SIGSEGV, &old, NULL); /* restore (the runtime's, or SIG_DFL in case 0) */
    csync(d2, n);
    /* the copies ran with libcopier's handler in front again (once
     * libcopier installed one: never with service=0) */
    struct sigaction cur;
    sigaction(SIGSEGV, NULL, &cur);
    int program_in_front = cur.sa_handler == onsegv || cur.sa_handler == SIG_DFL;
    if (!program_in_front)
      copier_seen = 1;
    if (copier_seen && r % 3 != 2 && program_in_front) {
      fprintf(stderr, "case %d: the program's handler is still in front after a copy ran\n", r);
      return 1;
    }
    if (d2[0] != 3 || d2[n - 1] != 3) {
      fprintf(stderr, "case %d: good copy incomplete after csync (d2[n-1]=%d)\n", r, d2[n - 1]);
      return 1;
    }
  }
  if (faults != cases) {
    fprintf(stderr, "faults=%d, want %d\n", (int)faults, cases);
    return 1;
  }
  printf("ok\n");
  return 0;
}
