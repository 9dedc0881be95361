/* A bad pointer faults like memcpy would: the program dies of SIGSEGV on the
 * thread that waits for the copy (here main), never hangs, and no other
 * byte is written wrong.
 *   fault src   : bad source, csync            -> SIGSEGV in main
 *   fault dst   : bad destination, csync_all   -> SIGSEGV in main
 *   fault exit  : bad source, no csync         -> SIGSEGV at exit drain
 *   fault dep   : a copy depending on a faulted one is waited for
 *                 -> SIGSEGV in main, and the dependent never ran on stale data
 *   fault depsegv: as dep, the dependent's bytes unchecked (copier.ko runs
 *                 it before the fault shows; the wait re-executes both)
 *                 -> SIGSEGV in main
 *   fault depmap: as dep, but the bad source becomes readable (zeros)
 *                 before the wait -> no fault, exit 0, and the dependent
 *                 holds the new bytes, as memcpy would have copied them
 * The program's own SIGSEGV handler (installed first) reports the thread
 * and exits 42; libcopier chains to it for faults that are not its own. */
#define _GNU_SOURCE
#include <copier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t main_tid;
static unsigned char *watch; /* bytes that must stay untouched */
static size_t watch_n;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)si;
  (void)ctx;
  pid_t tid = (pid_t)syscall(SYS_gettid);
  int clean = 1;
  for (size_t i = 0; i < watch_n; i++)
    if (watch[i] != 0xAB)
      clean = 0;
  const char *m = tid == main_tid ? (clean ? "segv: main thread, clean\n"
                                           : "segv: main thread, DIRTY\n")
                                  : "segv: OTHER thread\n";
  write(2, m, strlen(m));
  _exit(tid == main_tid && clean ? 42 : 43);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "src";
  main_tid = (pid_t)syscall(SYS_gettid);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  size_t n = 1u << 20;
  unsigned char *bad = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char *good = malloc(n), *dst = malloc(n);
  memset(good, 1, n);
  watch = malloc(n);
  watch_n = n;
  memset(watch, 0xAB, n);
  if (!strcmp(mode, "src")) {
    amemcpy(dst, bad, n);
    usleep(20000); /* let the service thread hit the fault first */
    csync(dst, n);
  } else if (!strcmp(mode, "dst")) {
    amemcpy(bad, good, n);
    usleep(20000);
    csync_all();
  } else if (!strcmp(mode, "exit")) {
    amemcpy(dst, bad, n);
    usleep(20000);
    return 0; /* the exit drain re-executes the copy here */
  } else if (!strcmp(mode, "dep")) {
    amemcpy(dst, bad, n);   /* faults */
    amemcpy(watch, dst, n); /* depends on it: must never run on stale dst */
    usleep(20000);
    csync(watch + n - 1, 1);
  } else if (!strcmp(mode, "depsegv")) {
    amemcpy(dst, bad, n);
    amemcpy(watch, dst, n);
    usleep(20000);
    watch_n = 0;
    csync(watch + n - 1, 1);
  } else if (!strcmp(mode, "depmap")) {
    memset(dst, 0x11, n);
    amemcpy(dst, bad, n);   /* faults while bad is PROT_NONE */
    amemcpy(watch, dst, n); /* reads dst: must see the re-executed copy */
    usleep(20000);
    if (mprotect(bad, n, PROT_READ)) return 2;
    csync(watch, n);
    csync(dst, n);
    for (size_t i = 0; i < n; i++)
      if (watch[i] != 0 || dst[i] != 0) {
        fprintf(stderr, "depmap: MISMATCH at %zu: dst %d watch %d\n", i, dst[i], watch[i]);
        return 1;
      }
    fprintf(stderr, "depmap: ok\n");
    return 0;
  }
  fprintf(stderr, "no fault?\n");
  return 1;
}
