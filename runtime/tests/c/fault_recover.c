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
 *   dep     a copy submitted meanwhile reads the failed copy's destination:
 *           it proceeds (the destination holds what it held, as after a
 *           memcpy that faulted before writing) and is waited for normally
 *           (run with absorb=0: a copy that absorbed the failed copy reads
 *           its bad source itself and faults on its own)
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

static int check(const char *p, char c, const char *what) {
  for (size_t i = 0; i < N; i++)
    if (p[i] != c) {
      printf("MISMATCH %s at %zu: %d != %d\n", what, i, p[i], c);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "csync";
  signal(SIGSEGV, onsegv);
  signal(SIGBUS, onsegv);
  char *dst = malloc(N), *src = malloc(N), *d2 = malloc(N), *d3 = malloc(N);
  memset(src, 'a', N);
  memset(dst, 'b', N);
  memset(d3, 'c', N);
  char *bad = mmap(0, N, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bad == MAP_FAILED) return 2;
  int bad_bytes = 0;

  copier_desc h = 0;
  /* the submit is inside the recovery block too: a copy the runtime does
   * synchronously (full queue, service=0) faults in amemcpy, as memcpy */
  if (sigsetjmp(jb, 1) == 0) {
    if (!strcmp(mode, "wait")) h = copier_submit(dst, bad, N, 0, NULL, NULL);
    else amemcpy(dst, bad, N);
    if (!strcmp(mode, "dep")) amemcpy(d3, dst, N); /* reads the failing copy's destination */
    if (!strcmp(mode, "all")) csync_all();
    else if (!strcmp(mode, "wait")) copier_wait(h, 0, N);
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
  amemcpy(d2, src, N);
  csync(d2, N);
  bad_bytes += check(d2, 'a', "d2");
  if (!strcmp(mode, "dep")) {
    csync(d3, N);
    bad_bytes += check(d3, 'b', "d3 (dst untouched by the failed copy)");
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
