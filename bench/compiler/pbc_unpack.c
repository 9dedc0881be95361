/*
 * protobuf-c unpacking of a message with large `bytes` fields, then a
 * consumer that reads every payload (sampled, as a checksum or a header
 * parse would). Built against a libprotobuf-c compiled with or without
 * CopierGen; prints "ns_per_round=<n> checksum=<hex>" for ROUNDS rounds.
 * MODE `pack` times packing the same message instead (into one reused wire
 * buffer, then the same sampled read of the wire bytes).
 *
 * Usage: pbc_unpack [CHUNKS] [PAYLOAD_BYTES] [ROUNDS] [unpack|pack]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bigmsg.pb-c.h"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
    size_t chunks = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
    size_t payload = argc > 2 ? strtoul(argv[2], NULL, 10) : 256 * 1024;
    int rounds = argc > 3 ? atoi(argv[3]) : 200;
    const char *mode = argc > 4 ? argv[4] : "unpack";
    int pack = strcmp(mode, "pack") == 0;
    if (!pack && strcmp(mode, "unpack") != 0) {
        fprintf(stderr, "pbc_unpack: MODE must be unpack or pack, not %s\n", mode);
        return 2;
    }

    Batch batch = BATCH__INIT;
    Chunk *cs = calloc(chunks, sizeof *cs);
    Chunk **cps = calloc(chunks, sizeof *cps);
    for (size_t i = 0; i < chunks; i++) {
        chunk__init(&cs[i]);
        cs[i].id = i;
        cs[i].payload.len = payload;
        cs[i].payload.data = malloc(payload);
        for (size_t j = 0; j < payload; j++)
            cs[i].payload.data[j] = (uint8_t)(j * 7 + i);
        cps[i] = &cs[i];
    }
    batch.n_chunks = chunks;
    batch.chunks = cps;
    size_t wire_len = batch__get_packed_size(&batch);
    uint8_t *wire = malloc(wire_len);
    batch__pack(&batch, wire);

    uint64_t sum = 0;
    uint64_t start = now_ns();
    for (int r = 0; pack && r < rounds; r++) {
        if (batch__pack(&batch, wire) != wire_len) {
            fprintf(stderr, "pbc_unpack: pack wrote the wrong length\n");
            return 1;
        }
        for (size_t j = 0; j < wire_len; j += 64)
            sum = sum * 31 + wire[j];
    }
    for (int r = 0; !pack && r < rounds; r++) {
        Batch *b = batch__unpack(NULL, wire_len, wire);
        if (!b || b->n_chunks != chunks) {
            fprintf(stderr, "pbc_unpack: unpack failed\n");
            return 1;
        }
        for (size_t i = 0; i < b->n_chunks; i++) {
            const ProtobufCBinaryData *p = &b->chunks[i]->payload;
            for (size_t j = 0; j < p->len; j += 64)
                sum = sum * 31 + p->data[j];
            sum += b->chunks[i]->id;
        }
        batch__free_unpacked(b, NULL);
    }
    uint64_t ns = now_ns() - start;
    printf("ns_per_round=%llu checksum=%016llx\n", (unsigned long long)(ns / (uint64_t)rounds),
           (unsigned long long)sum);
    return 0;
}
