/*
 * What CopierGen's cost model (-copiergen-min-overlap) trades: a copy of
 * N bytes, then W instructions of independent straight-line work (a
 * dependent multiply-add chain, about one instruction each), then the use
 * of the destination. A = memcpy + work; B = amemcpy + work + csync.
 * Interleaved A/B rounds of 20 copies each into warm destinations;
 * prints the medians and the ratio B/A (< 1: the asynchronous copy pays).
 *
 * Usage: overlap BYTES WORK [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copier.h"

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* W instructions of work the compiler cannot fold or vectorise. */
__attribute__((noinline)) static uint64_t work(uint64_t x, long w) {
    for (long i = 0; i < w; i++) {
        x = x * 2862933555777941757ull + 3037000493ull;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

enum { INNER = 20 };

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: overlap BYTES WORK [ROUNDS]\n");
        return 2;
    }
    size_t n = strtoul(argv[1], NULL, 10);
    long w = atol(argv[2]);
    int rounds = argc > 3 ? atoi(argv[3]) : 201;
    char *src = malloc(n), *dst[INNER];
    uint64_t *ta = malloc(rounds * sizeof *ta), *tb = malloc(rounds * sizeof *tb), x = 1;
    if (!src || !ta || !tb)
        return 1;
    memset(src, 7, n);
    for (int i = 0; i < INNER; i++) {
        if (!(dst[i] = malloc(n)))
            return 1;
        memset(dst[i], 1, n);
    }
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < 2; b++) {
            uint64_t t0 = now_ns();
            for (int i = 0; i < INNER; i++) {
                if (b) {
                    amemcpy(dst[i], src, n);
                    x = work(x, w);
                    csync(dst[i], n);
                } else {
                    memcpy(dst[i], src, n);
                    x = work(x, w);
                }
                x += (unsigned char)dst[i][n - 1];
            }
            (b ? tb : ta)[r] = now_ns() - t0;
        }
    }
    qsort(ta, rounds, sizeof *ta, cmp_u64);
    qsort(tb, rounds, sizeof *tb, cmp_u64);
    double a = (double)ta[rounds / 2] / INNER, bb = (double)tb[rounds / 2] / INNER;
    printf("bytes=%zu work=%ld memcpy_ns=%.0f amemcpy_ns=%.0f ratio=%.3f check=%llu\n", n, w, a, bb, bb / a,
           (unsigned long long)(x & 1));
    return 0;
}
