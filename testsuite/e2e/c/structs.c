/*
 * Large struct assignment, array copies through casts and pointer
 * arithmetic, overlapping memmove, variable and zero lengths, a copy whose
 * destination is returned, stored in a global, and passed to libc, and a
 * source overwritten and freed right after its copy.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct frame {
    uint32_t id;
    uint32_t len;
    unsigned char payload[48 * 1024];
    uint64_t trailer;
};

static struct frame frames[8];
static unsigned char *last_copy;

static uint64_t hash(const void *p, size_t n) {
    const unsigned char *c = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

static struct frame make_frame(uint32_t id) {
    struct frame f;
    f.id = id;
    f.len = sizeof f.payload - id * 100;
    for (size_t i = 0; i < sizeof f.payload; i++)
        f.payload[i] = (unsigned char)(i * 7 + id);
    f.trailer = 0xfeedf00dULL + id;
    return f;
}

/* Returns a copy the caller owns: the destination outlives the function. */
static unsigned char *dup_bytes(const unsigned char *src, size_t n) {
    unsigned char *d = malloc(n ? n : 1);
    memcpy(d, src, n);
    return d;
}

int main(int argc, char **argv) {
    (void)argv;
    uint64_t h = 0;
    for (uint32_t i = 0; i < 8; i++) {
        struct frame f = make_frame(i);
        frames[i] = f; /* 48 KiB struct copy */
        h ^= hash(&frames[i], sizeof frames[i]) + frames[i].trailer + frames[i].payload[100];
    }
    /* Copy through a cast and pointer arithmetic, then read a field. */
    struct frame *tmp = malloc(sizeof *tmp);
    memcpy((char *)tmp + 0, (const char *)&frames[3], sizeof *tmp);
    h += tmp->len + tmp->payload[tmp->len - 1];
    /* Source overwritten and freed right after the copy. */
    unsigned char *src = malloc(100000), *dst = malloc(100000);
    for (int i = 0; i < 100000; i++)
        src[i] = (unsigned char)(i ^ (i >> 8));
    memcpy(dst, src, 100000);
    memset(src, 0, 100000);
    free(src);
    h += hash(dst, 100000);
    /* Overlapping memmove, both directions. */
    memmove(dst + 1000, dst, 60000);
    h += hash(dst, 100000);
    memmove(dst, dst + 3000, 60000);
    h += hash(dst, 100000);
    /* Variable and zero lengths (argc is 1 when run by the suite). */
    size_t n = (size_t)(argc - 1) * 4096;
    memcpy(dst, tmp->payload, n);
    h += hash(dst, 64);
    /* Destination stored in a global, then passed to libc. */
    last_copy = dup_bytes(frames[5].payload, sizeof frames[5].payload);
    unsigned char *again = malloc(sizeof frames[5].payload);
    memcpy(again, last_copy, sizeof frames[5].payload);
    h += (uint64_t)memcmp(again, frames[5].payload, sizeof frames[5].payload) + again[777];
    char line[64];
    snprintf(line, sizeof line, "%u", (unsigned)last_copy[12345]);
    h += hash(line, strlen(line));
    free(again);
    free(last_copy);
    free(dst);
    free(tmp);
    printf("structs hash=%016llx\n", (unsigned long long)h);
    return 0;
}
