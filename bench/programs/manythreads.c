/* 300 threads (beyond the 255 clients), each: memcpy 1 MiB, read it back from the end, exit; some threads fork */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#define N (1u << 20)
static char *src;
static void *thr(void *a) {
    long k = (long)a; char *d = malloc(N);
    memcpy(d, src, N);
    unsigned long s = 0; for (size_t i = N; i-- > 0;) s = s * 131 + (unsigned char)d[i];
    if (k % 50 == 7) { pid_t p = fork(); if (p == 0) { memcpy(d, src, N); _exit(d[N-1] == src[N-1] ? 0 : 3); } int st; waitpid(p, &st, 0); if (st) s = 0; }
    free(d); return (void *)s;
}
int main(int argc, char **argv) { int T = argc > 1 ? atoi(argv[1]) : 300;
    src = malloc(N); for (size_t i = 0; i < N; i++) src[i] = (char)(i * 13 + 5);
    pthread_t t[300]; for (long k = 0; k < T; k++) pthread_create(&t[k], 0, thr, (void *)k);
    unsigned long first = 0; int bad = 0;
    for (int k = 0; k < T; k++) { void *r; pthread_join(t[k], &r); if (!k) first = (unsigned long)r; else bad += (unsigned long)r != first; }
    printf("sum=%lu mismatching_threads=%d\n", first, bad); return 0;
}
