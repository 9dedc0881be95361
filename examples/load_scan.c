/*
 * load_scan: load a whole file into a private heap buffer, then scan it.
 *
 * The loader pattern of many tools that read a database or an index file
 * whole: the file is mapped read-only, each load copies it into a buffer of
 * its own with memcpy (the copy stays valid whatever happens to the file
 * afterwards), and a table-driven scanner walks the copy front to back:
 * lines, words (as `wc`: runs of non-blank bytes), Debian control-file
 * paragraphs and fields (dpkg's status file is the default input), and a
 * Fletcher-style checksum of every byte. Buffers above glibc's largest mmap
 * threshold (32 MiB) are freshly mapped by every malloc, so each load copies
 * into new pages: the copy pays the first-touch page faults. A CopierGen
 * build turns the memcpy into amemcpy and the scan waits only for the bytes
 * it reaches (a windowed csync_ready_end in the loop), so the copy and its
 * page faults run on the service thread while the scan proceeds.
 *
 * Build: copiergen cc -O2 examples/load_scan.c -o load_scan
 * Run:   COPIER_STATS=1 ./load_scan [FILE] [ROUNDS]
 * Output (stdout): the counts of the last round and the checksums summed
 * over all rounds; identical with and without the pass. The line and byte
 * counts equal `wc -l -c FILE`.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct counts {
    uint64_t lines, words, paragraphs, fields, sum1, sum2;
};

/* Byte classes: 0 other, 1 blank (space, tab, CR, VT, FF), 2 newline. */
static unsigned char class_of[256];

/* The scanner's step table, indexed by the classes of the last three bytes
 * (2 bits each, oldest highest): what byte i adds to four 16-bit counters
 * packed in one word (bits 0-15 lines, 16-31 words, 32-47 fields, 48-63
 * paragraphs). Byte i ends a line when it is a newline, starts a word when
 * it is not blank and follows a blank, starts a field when it starts a line
 * with a non-blank byte (continuation lines start with a blank), and starts
 * a paragraph when it starts a non-empty line after an empty one. */
static uint64_t step[64];

#define SPAN 65535 /* bytes per counter flush: a 16-bit lane cannot overflow */

static void init_tables(void) {
    class_of['\n'] = 2;
    class_of[' '] = class_of['\t'] = class_of['\r'] = 1;
    class_of['\v'] = class_of['\f'] = 1;
    for (unsigned k = 0; k < 64; k++) {
        unsigned p2 = (k >> 4) & 3, p1 = (k >> 2) & 3, c = k & 3;
        uint64_t lines = c == 2, words = p1 != 0 && c == 0, fields = p1 == 2 && c == 0;
        uint64_t paragraphs = p2 == 2 && p1 == 2 && c != 2;
        step[k] = lines | words << 16 | fields << 32 | paragraphs << 48;
    }
}

/* Scans buf[0, len) front to back; the file is taken to follow an empty
 * line. */
static struct counts scan(const unsigned char *buf, size_t len) {
    struct counts c = {0, 0, 0, 0, 0, 0};
    unsigned k = 2 << 2 | 2; /* two newlines before the file */
    uint64_t s1 = 0, s2 = 0;
    for (size_t off = 0; off < len; off += SPAN) {
        size_t end = len - off < SPAN ? len : off + SPAN;
        uint64_t acc = 0;
        for (size_t i = off; i < end; i++) {
            unsigned char b = buf[i];
            k = (k << 2 | class_of[b]) & 63;
            acc += step[k];
            s1 += b;
            s2 += s1;
        }
        c.lines += acc & 0xffff;
        c.words += (acc >> 16) & 0xffff;
        c.fields += (acc >> 32) & 0xffff;
        c.paragraphs += acc >> 48;
    }
    c.sum1 = s1;
    c.sum2 = s2;
    return c;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/var/lib/dpkg/status";
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (rounds < 1) {
        fprintf(stderr, "load_scan: ROUNDS must be a positive number\n");
        return 2;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        perror(path);
        return 1;
    }
    size_t n = (size_t)st.st_size;
    if (n == 0) {
        fprintf(stderr, "load_scan: %s is empty\n", path);
        return 1;
    }
    const unsigned char *map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    close(fd);
    init_tables();
    struct counts last = {0, 0, 0, 0, 0, 0};
    uint64_t sum1 = 0, sum2 = 0;
    for (int r = 0; r < rounds; r++) {
        /* The load: a private copy of the file in a fresh buffer. */
        unsigned char *buf = malloc(n);
        if (!buf) {
            fprintf(stderr, "load_scan: out of memory\n");
            return 1;
        }
        memcpy(buf, map, n);
        last = scan(buf, n);
        sum1 += last.sum1;
        sum2 += last.sum2;
        free(buf);
    }
    printf("lines=%llu words=%llu paragraphs=%llu fields=%llu bytes=%zu rounds=%d checksum=%016llx%016llx\n",
           (unsigned long long)last.lines, (unsigned long long)last.words,
           (unsigned long long)last.paragraphs, (unsigned long long)last.fields, n, rounds,
           (unsigned long long)sum1, (unsigned long long)sum2);
    return 0;
}
