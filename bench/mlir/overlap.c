// The MLIR pass's pattern and the basis of its cost model
// (copiergen-mlir placement::DEFAULT_THRESHOLD): copy n bytes, independent
// work of about four times the copy, wait, then read the destination;
// memcpy against amemcpy + csync, best of 7 rounds per size. Prints
// memcpy/amemcpy (> 1: the asynchronous copy pays). Build and run (under the
// exclusive machine lock):
//   cc -O2 -I runtime/include bench/mlir/overlap.c -o overlap
//      target/release/libcopier.a -lpthread -ldl -lm   (one line), ./overlap
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "copier.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static volatile double sink;
static double work(long iters) { double a = 1.0; for (long i = 0; i < iters; i++) a = a * 1.0000001 + 1e-9; return a; }
static double consume(const double *d, size_t n) { double s = 0; for (size_t i = 0; i < n / 8; i++) s += d[i]; return s; }
int main(void) {
  size_t sizes[] = {32768, 65536, 131072, 262144, 524288, 1u << 20};
  for (int k = 0; k < 6; k++) {
    size_t n = sizes[k];
    int reps = (int)((512u << 20) / n); if (reps > 20000) reps = 20000;
    long w = (long)(n / 16); /* ~ n/16 dependent FMAs: about the copy's time, ~4x */
    char *s = malloc(n), *d = malloc(n);
    memset(s, 1, n); memset(d, 2, n);
    double best[2] = {1e9, 1e9};
    for (int round = 0; round < 7; round++)
      for (int v = 0; v < 2; v++) {
        double t0 = now();
        for (int i = 0; i < reps; i++) {
          if (v == 0) memcpy(d, s, n); else amemcpy(d, s, n);
          sink = work(w);
          if (v == 1) csync(d, n);
          sink = consume((double *)d, n);
        }
        double t = (now() - t0) / reps;
        if (t < best[v]) best[v] = t;
      }
    printf("%8zu bytes: memcpy %9.2f us, amemcpy %9.2f us, memcpy/amemcpy %.3f\n", n, best[0] * 1e6, best[1] * 1e6, best[0] / best[1]);
    free(s); free(d);
  }
  return 0;
}
