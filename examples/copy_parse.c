/*
 * copy_parse: the copy-then-parse pattern of a network or storage stack, on
 * real data.
 *
 * The input (default: dpkg's status file, a Debian control file of
 * "Field: value" paragraphs) is read into an I/O buffer in large chunks;
 * each chunk is then copied into a message buffer with memcpy — as a
 * protocol stack copies from its receive buffer into the application's —
 * and parsed from there by a streaming parser: paragraphs, fields, and an
 * FNV-1a hash of every `Package:` name with its `Installed-Size`. The copy
 * is large and its destination is read front to back, so a CopierGen build
 * turns the memcpy into amemcpy and the parse waits only for the bytes it
 * reaches (a windowed csync_ready_end in the loop).
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

#define FNV_PRIME 1099511628211ULL

static const char PACKAGE[] = "Package: ";
static const char INSTALLED[] = "Installed-Size: ";

/* Reads the file chunk by chunk: read(2) into the receive buffer, memcpy
 * into the message buffer, then a streaming parse of the message buffer
 * front to back (line state survives chunk boundaries). */
static int run(const char *path, struct totals *t) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    char *io = malloc(CHUNK);
    char *msg = malloc(CHUNK);
    if (!io || !msg) {
        fprintf(stderr, "copy_parse: out of memory\n");
        exit(1);
    }
    /* Parser state, all locals: the current line's column and first byte,
     * whether it has a ':', how far it matches each key, the number being
     * read after "Installed-Size: ", and the running hash. */
    uint64_t paragraphs = t->paragraphs, fields = t->fields, packages = t->packages;
    uint64_t installed = t->installed_kib, hash = t->hash, kib = 0;
    size_t col = 0;
    int in_para = 0, colon = 0, first = 0, pkg = 1, inst = 1, digits = 1;
    for (;;) {
        ssize_t n = read(fd, io, CHUNK);
        if (n < 0) {
            perror("read");
            return -1;
        }
        /* The copy: receive buffer -> message buffer. */
        memcpy(msg, io, (size_t)n);
        /* At end of file an unterminated last line still counts. */
        size_t len = (size_t)n;
        int eof = n == 0;
        for (size_t i = 0; i < len + (size_t)(eof && col > 0); i++) {
            char c = i < len ? msg[i] : '\n';
            if (c != '\n') {
                if (col == 0)
                    first = c;
                if (c == ':')
                    colon = 1;
                if (pkg && col < sizeof PACKAGE - 1)
                    pkg = c == PACKAGE[col];
                else if (pkg)
                    hash = (hash ^ (unsigned char)c) * FNV_PRIME;
                if (inst && col < sizeof INSTALLED - 1)
                    inst = c == INSTALLED[col];
                else if (inst && digits && c >= '0' && c <= '9')
                    kib = kib * 10 + (uint64_t)(c - '0');
                else if (inst)
                    digits = 0;
                col++;
                continue;
            }
            if (col == 0) {
                in_para = 0;
            } else {
                if (!in_para) {
                    paragraphs++;
                    in_para = 1;
                }
                if (first != ' ' && first != '\t' && colon)
                    fields++;
                if (pkg && col > sizeof PACKAGE - 1) {
                    packages++;
                } else if (inst && col > sizeof INSTALLED - 1) {
                    installed += kib;
                    for (size_t k = 0; k < sizeof kib; k++)
                        hash = (hash ^ (unsigned char)(kib >> (8 * k))) * FNV_PRIME;
                }
            }
            col = 0;
            colon = 0;
            pkg = inst = digits = 1;
            kib = 0;
        }
        if (eof)
            break;
    }
    t->paragraphs = paragraphs;
    t->fields = fields;
    t->packages = packages;
    t->installed_kib = installed;
    t->hash = hash;
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
