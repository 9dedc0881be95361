/* A program that recovers from a copy's SIGSEGV with sigsetjmp/siglongjmp
 * (as it would around a faulting memcpy): the copy faults once, in the first
 * wait that covers it, and is then finished-with-fault: later csync,
 * csync_all, copier_wait, copies that depend on it and the exit drain
 * neither fault again nor hang. Prints "recovered" once per delivered fault
 * (the stage asserts exactly one) and exits 0.
 *
 * Modes (argv[1]):
 *   csync   the fault surfaces in csync of the destination; a later
 *           independent copy, csync_all and the exit drain follow
 *   exit    recovered in csync, then the program just returns (exit drain)
 *   all     the fault surfaces in csync_all
 *   wait    the fault surfaces in copier_wait of the copy's handle
 *   dep     a copy B submitted meanwhile reads the failed copy's
 *           destination: it proceeds like memcpy(d3, dst) run after the
 *           faulting memcpy (the destination holds what it held) without a
 *           fault of its own, also when it absorbed the failed copy (read
 *           its bad source instead of dst, default absorb=1); a copy into
 *           dst submitted after the recovery does not overtake B
 *   depsync as dep, but the fault surfaces in csync of B's destination
 *           (B waits for the faulting copy, which faults once)
 *   depchain as dep, plus a copy d4 <- d3 submitted after B (it absorbs
 *           through B from the bad source): it copies what B copies
 *   deppart as dep with a source whose first half is readable: B reads
 *           the readable half (or what the failed copy wrote of it) and the
 *           untouched destination for the rest, with no second fault
 *   chain   recovered, then more copies into and out of the same buffers
 *           and a second recovery from a second bad copy (two faults:
 *           prints "recovered" twice, the stage checks the count) */
#include <copier.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define N (1u << 20)
static sigjmp_buf jb;
static volatile int faults;

static void onsegv(int s) {
  (void)s;
  siglongjmp(jb, 1);
}

static int checkn(const char *p, size_t n, char c, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != c) {
      printf("MISMATCH %s at %zu: %d != %d\n", what, i, p[i], c);
      return 1;
    }
  return 0;
}
static int check(const char *p, char c, const char *what) { return checkn(p, N, c, what); }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "csync";
  signal(SIGSEGV, onsegv);
  signal(SIGBUS, onsegv);
  char *dst = malloc(N), *src = malloc(N), *d2 = malloc(N), *d3 = malloc(N), *d4 = malloc(N);
  memset(src, 'a', N);
  memset(dst, 'b', N);
  memset(d3, 'c', N);
  memset(d4, 'd', N);
  char *bad = mmap(0, N, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bad == MAP_FAILED) return 2;
  int bad_bytes = 0;
  int dep = !strncmp(mode, "dep", 3);
  /* B was queued before the fault (a synchronous copy, service=0, faults
   * in the first amemcpy, and B never runs, as with memcpy) */
  static volatile int dep_submitted;
  if (!strcmp(mode, "deppart")) {
    /* first half readable ('a'), second half PROT_NONE */
    bad = mmap(0, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bad == MAP_FAILED) return 2;
    memset(bad, 'a', N / 2);
    if (mprotect(bad + N / 2, N / 2, PROT_NONE)) return 2;
  }

  copier_desc h = 0;
  /* the submit is inside the recovery block too: a copy the runtime does
   * synchronously (full queue, service=0) faults in amemcpy, as memcpy */
  if (sigsetjmp(jb, 1) == 0) {
    if (!strcmp(mode, "wait")) h = copier_submit(dst, bad, N, 0, NULL, NULL);
    else amemcpy(dst, bad, N);
    if (dep) { /* B reads the failing copy's destination */
      amemcpy(d3, dst, N);
      dep_submitted = 1;
      if (!strcmp(mode, "depchain")) {
        amemcpy(d4, d3, N);
        dep_submitted = 2;
      }
    }
    if (!strcmp(mode, "all")) csync_all();
    else if (!strcmp(mode, "wait")) copier_wait(h, 0, N);
    else if (!strcmp(mode, "depsync")) csync(d3, N);
    else csync(dst, N);
    puts("no fault?");
    return 1;
  } else {
    faults++;
    puts("recovered");
    fflush(stdout);
    if (faults > 3) {
      puts("LOOP");
      return 3;
    }
  }
  if (!strcmp(mode, "exit")) return 0;
  char *scratch = malloc(N);
  if (dep) {
    /* C overwrites dst while B may still be pending: B must read dst first */
    amemcpy(dst, src, N);
    /* more pending copies than csync's lock-free scan of the own queue
     * covers (16): the csync(dst) below looks dst up in the tracker's index */
    for (int i = 0; i < 20; i++) amemcpy(scratch + i * (32 << 10), src, 32 << 10);
  }
  amemcpy(d2, src, N);
  csync(d2, N);
  bad_bytes += check(d2, 'a', "d2");
  if (dep) {
    /* waits for C, which waits for B (spawn=0: nothing ran before) */
    csync(dst, N);
    bad_bytes += check(dst, 'a', "dst (overwritten after the recovery)");
    csync(d3, N);
    if (!dep_submitted) {
      bad_bytes += check(d3, 'c', "d3 (B never submitted)");
    } else if (!strcmp(mode, "deppart")) {
      /* the failed copy wrote some prefix of the readable half, or not */
      for (size_t i = 0; i < N / 2; i++)
        if (d3[i] != 'a' && d3[i] != 'b') {
          printf("MISMATCH d3 at %zu: %d\n", i, d3[i]);
          bad_bytes++;
          break;
        }
      bad_bytes += checkn(d3 + N / 2, N / 2, 'b', "d3 second half (never readable)");
    } else {
      bad_bytes += check(d3, 'b', "d3 (dst untouched by the failed copy)");
    }
    if (!strcmp(mode, "depchain")) {
      csync(d4, N);
      bad_bytes += check(d4, dep_submitted == 2 ? 'b' : 'd', "d4 (copy of d3)");
    }
  }
  if (!strcmp(mode, "wait")) {
    if (copier_wait(h, 0, N) != 0 || copier_query(h, 0, N) != 1) {
      puts("handle not complete after its fault");
      return 1;
    }
  }
  if (!strcmp(mode, "chain")) {
    amemcpy(dst, src, N);
    amemcpy(d3, dst, N);
    csync(d3, N);
    bad_bytes += check(d3, 'a', "d3");
    static volatile int second;
    if (sigsetjmp(jb, 1) == 0) {
      amemcpy(d2, bad, N);
      csync(d2, N);
      puts("no second fault?");
      return 1;
    } else if (!second) {
      second = 1;
      puts("recovered");
      fflush(stdout);
    } else {
      puts("LOOP");
      return 3;
    }
  }
  csync_all();
  csync(dst, N);
  puts(bad_bytes ? "FAILED" : "done");
  fflush(stdout);
  return bad_bytes != 0;
}
