/*
 * capi_parse: the copy-then-parse window with libcopier's C API, written by
 * hand (no compiler pass).
 *
 * The input (default: dpkg's status file, the Debian package database, a
 * real control file of "Field: value" paragraphs) is read into an I/O
 * buffer. Each round copies it into a message buffer — as a protocol stack
 * copies from its receive buffer into the application's — and parses the
 * message front to back: paragraphs, `Package:` stanzas, the sum of
 * `Installed-Size`, and an FNV-1a hash of every byte. With amemcpy the
 * parser waits only for the bytes it reaches: it asks csync_ready_end() for
 * a window of ready bytes and parses inside it, so the copy of the rest
 * overlaps with the parse.
 *
 * Both variants (memcpy, amemcpy) run on the same input, interleaved; the
 * program prints both results (they must match) and their median times.
 *
 * Build: clang-22 -O2 $(pkg-config --cflags --libs copier) examples/capi_parse.c
 * Run:   COPIER_STATS=1 ./capi_parse [FILE] [ROUNDS]
 */
#include <copier.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 4096 /* bytes the parser asks to be ready at a time */

struct result {
    uint64_t paragraphs, packages, installed_kib, hash;
};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Parse msg[0, len). With `async`, bytes are read only inside the window
 * [msg, ready) that libcopier reports complete. */
static struct result parse(const char *msg, size_t len, int async) {
    struct result r = {0, 0, 0, 1469598103934665603ULL};
    const char *end = msg + len, *ready = async ? msg : end;
    int blank = 1;
    const char *line = msg;
    uint64_t field_kib = 0;
    int in_size = 0, at_line_start = 1;
    for (const char *p = msg; p < end; p++) {
        if (p >= ready) {
            size_t want = (size_t)(end - p) < WINDOW ? (size_t)(end - p) : WINDOW;
            ready = csync_ready_end(p, want);
        }
        unsigned char c = (unsigned char)*p;
        r.hash = (r.hash ^ c) * 1099511628211ULL;
        if (at_line_start) {
            line = p;
            at_line_start = 0;
            in_size = 0;
        }
        if (c == '\n') {
            if (p == line) { /* empty line ends a paragraph */
                if (!blank)
                    r.paragraphs++;
                blank = 1;
            } else {
                blank = 0;
            }
            if (in_size)
                r.installed_kib += field_kib;
            at_line_start = 1;
            continue;
        }
        if (p - line == 8 && !memcmp(line, "Package:", 8))
            r.packages++;
        if (p - line == 15 && !memcmp(line, "Installed-Size:", 15)) {
            in_size = 1;
            field_kib = 0;
        } else if (in_size && c >= '0' && c <= '9') {
            field_kib = field_kib * 10 + (uint64_t)(c - '0');
        }
    }
    if (!blank)
        r.paragraphs++;
    return r;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/var/lib/dpkg/status";
    int rounds = argc > 2 ? atoi(argv[2]) : 50;
    if (rounds < 1)
        rounds = 1;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "capi_parse: cannot read %s\n", path);
        return 2;
    }
    size_t n = (size_t)st.st_size;
    char *io = malloc(n), *msg = malloc(n);
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, io + got, n - got);
        if (k <= 0) {
            fprintf(stderr, "capi_parse: short read on %s\n", path);
            return 2;
        }
        got += (size_t)k;
    }
    close(fd);

    uint64_t *t_sync = calloc((size_t)rounds, 8), *t_async = calloc((size_t)rounds, 8);
    struct result rs = {0}, ra = {0};
    for (int i = 0; i < rounds; i++) {
        /* A: memcpy then parse */
        uint64_t t0 = now_ns();
        memcpy(msg, io, n);
        rs = parse(msg, n, 0);
        uint64_t t1 = now_ns();
        /* B: amemcpy, parse inside the ready window */
        amemcpy(msg, io, n);
        ra = parse(msg, n, 1);
        csync(msg, n); /* (already complete: the parse reached the end) */
        uint64_t t2 = now_ns();
        t_sync[i] = t1 - t0;
        t_async[i] = t2 - t1;
        if (memcmp(&rs, &ra, sizeof rs) != 0) {
            fprintf(stderr, "capi_parse: results differ in round %d\n", i);
            return 1;
        }
    }
    qsort(t_sync, (size_t)rounds, 8, cmp_u64);
    qsort(t_async, (size_t)rounds, 8, cmp_u64);
    double ms = (double)t_sync[rounds / 2] / 1e3, as = (double)t_async[rounds / 2] / 1e3;
    printf("input: %s (%zu bytes), %d rounds\n", path, n, rounds);
    printf("result: %llu paragraphs, %llu packages, %llu KiB installed, fnv1a %016llx\n",
           (unsigned long long)ra.paragraphs, (unsigned long long)ra.packages,
           (unsigned long long)ra.installed_kib, (unsigned long long)ra.hash);
    printf("median per round: memcpy+parse %.1f us, amemcpy+parse %.1f us (%.2fx)\n", ms, as, ms / as);
    free(io);
    free(msg);
    return 0;
}
