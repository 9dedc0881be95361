/* A completion handler that frees (here: overwrites, or unmaps) the copy's
 * source, the use amemcpy_handler documents ("e.g. to free the source").
 * With memcpy every earlier copy had finished reading that buffer, so the
 * handler must not run while an earlier copy still reads it:
 *   absorb   amemcpy_handler(B, S, n, free S); amemcpy(D, B, n): D absorbs
 *            from S (default absorb=1) and must still get S's bytes
 *   earlier  amemcpy(B, S, n); amemcpy_handler(X, S, n/2, free S): B gets S
 *   chain    amemcpy(Y, S, n); amemcpy(B, Y, n) (absorbs S);
 *            amemcpy_handler(X, S, n/2, free S): B gets S
 * "free" overwrites S with 0xEE (as a reused allocation would), or munmaps
 * it with "unmap" as the second argument. Run under spawn=0 it is
 * deterministic; before the fix every mode failed there (B or D held 0xEE).
 * Exit 0 and "ok" on success. */
#include <copier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static size_t N;
static int handlers;
static void scribble(void *s) {
  memset(s, 0xEE, N);
  handlers++;
}
static void unmap(void *s) {
  munmap(s, N);
  handlers++;
}

static int expect(const char *what, int round, const unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(i * 11 + seed)) {
      fprintf(stderr, "round %d: %s[%zu] = %02x, want %02x\n", round, what, i, p[i], (unsigned char)(i * 11 + seed));
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: handler_free absorb|earlier|chain [unmap]\n");
    return 2;
  }
  const char *mode = argv[1];
  void (*fn)(void *) = argc > 2 ? unmap : scribble;
  int bad = 0, rounds = 40;
  for (int r = 0; r < rounds && !bad; r++) {
    N = (size_t)(64 << 10) << (r % 5);
    unsigned seed = (unsigned)r * 7 + 1;
    unsigned char *S = mmap(NULL, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *B = malloc(N), *D = malloc(N), *X = malloc(N), *Y = malloc(N);
    if (S == MAP_FAILED || !B || !D || !X || !Y)
      return 2;
    for (size_t i = 0; i < N; i++)
      S[i] = (unsigned char)(i * 11 + seed);
    if (!strcmp(mode, "absorb")) {
      amemcpy_handler(B, S, N, fn, S);
      amemcpy(D, B, N);
      if (r & 1)
        csync(B, N); /* runs the copy into B, and so its handler, first */
      csync(D, N);
      bad |= expect("D", r, D, N, seed);
      csync(B, N);
      bad |= expect("B", r, B, N, seed);
    } else {
      if (!strcmp(mode, "chain")) {
        amemcpy(Y, S, N);
        amemcpy(B, Y, N);
      } else {
        amemcpy(B, S, N);
      }
      amemcpy_handler(X, S, N / 2, fn, S);
      csync(X, N / 2); /* runs the handler copy, and maybe its handler */
      bad |= expect("X", r, X, N / 2, seed);
      csync(B, N);
      bad |= expect("B", r, B, N, seed);
    }
    csync_all();
    if (handlers != r + 1) {
      fprintf(stderr, "round %d: %d handlers ran, want %d\n", r, handlers, r + 1);
      bad = 1;
    }
    if (fn == scribble)
      munmap(S, N);
    free(B);
    free(D);
    free(X);
    free(Y);
  }
  if (!bad)
    printf("ok\n");
  return bad;
}
