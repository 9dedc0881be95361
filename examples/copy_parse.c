/*
 * copy_parse: the copy-then-parse pattern of a network or storage stack, on
 * real data.
 *
 * The input (default: dpkg's status file, a Debian control file of
 * "Field: value" paragraphs) is read into an I/O buffer in large chunks;
 * each chunk is then copied into a message buffer with memcpy — as a
 * protocol stack copies from its receive buffer into the application's —
 * and parsed from there: paragraphs, fields, and an FNV-1a hash of every
 * `Package:` name with its `Installed-Size`. The copy is large and its
 * destination is read front to back, so a CopierGen build turns the memcpy
 * into amemcpy and the parse waits only for the bytes it reaches.
 *
 * Build: copiergen cc -O2 examples/copy_parse.c -o copy_parse
 * Run:   COPIER_STATS=1 ./copy_parse [FILE] [ROUNDS]
 * Output (stdout) is identical with and without the pass.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

struct totals {
    uint64_t paragraphs, fields, packages, installed_kib, hash;
};

static uint64_t fnv1a(uint64_t h, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Parse the complete lines of msg[0, len); returns the bytes consumed. */
static size_t parse(const char *msg, size_t len, struct totals *t, int *in_para) {
    size_t pos = 0;
    for (;;) {
        const char *nl = memchr(msg + pos, '\n', len - pos);
        if (!nl)
            return pos;
        size_t line_len = (size_t)(nl - (msg + pos));
        const char *line = msg + pos;
        if (line_len == 0) {
            *in_para = 0;
        } else {
            if (!*in_para) {
                t->paragraphs++;
                *in_para = 1;
            }
            if (line[0] != ' ' && line[0] != '\t' && memchr(line, ':', line_len))
                t->fields++;
            if (line_len > 9 && memcmp(line, "Package: ", 9) == 0) {
                t->packages++;
                t->hash = fnv1a(t->hash, line + 9, line_len - 9);
            } else if (line_len > 16 && memcmp(line, "Installed-Size: ", 16) == 0) {
                uint64_t kib = strtoull(line + 16, NULL, 10);
                t->installed_kib += kib;
                t->hash = fnv1a(t->hash, (const char *)&kib, sizeof kib);
            }
        }
        pos += line_len + 1;
    }
}

static int run(const char *path, struct totals *t) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    char *io = malloc(CHUNK);
    /* Room for a partial line carried over plus one chunk. */
    char *msg = malloc(2 * CHUNK);
    if (!io || !msg) {
        fprintf(stderr, "copy_parse: out of memory\n");
        exit(1);
    }
    size_t carry = 0;
    int in_para = 0;
    for (;;) {
        ssize_t n = read(fd, io, CHUNK);
        if (n < 0) {
            perror("read");
            return -1;
        }
        if (n == 0)
            break;
        if (carry + (size_t)n > 2 * CHUNK) {
            fprintf(stderr, "copy_parse: line longer than %d bytes\n", CHUNK);
            return -1;
        }
        /* The copy: receive buffer -> message buffer. */
        memcpy(msg + carry, io, (size_t)n);
        size_t len = carry + (size_t)n;
        size_t used = parse(msg, len, t, &in_para);
        carry = len - used;
        memmove(msg, msg + used, carry);
    }
    if (carry) {
        msg[carry++] = '\n';
        parse(msg, carry, t, &in_para);
    }
    free(io);
    free(msg);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/var/lib/dpkg/status";
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    struct totals t = {0, 0, 0, 0, 14695981039346656037ULL};
    for (int r = 0; r < rounds; r++)
        if (run(path, &t) != 0)
            return 1;
    printf("paragraphs=%llu fields=%llu packages=%llu installed_kib=%llu hash=%016llx\n",
           (unsigned long long)t.paragraphs, (unsigned long long)t.fields,
           (unsigned long long)t.packages, (unsigned long long)t.installed_kib,
           (unsigned long long)t.hash);
    return 0;
}
