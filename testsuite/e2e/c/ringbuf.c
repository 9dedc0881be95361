/*
 * Two threads hand 64 KiB blocks through a ring of slots guarded by a mutex
 * and condition variables: the producer memcpy's each block into a slot, the
 * consumer memcpy's it out and folds it into a checksum. Both double-buffer,
 * so each copy overlaps real work (generating the next block, folding the
 * previous one). Proves: copies whose buffers are handed to another thread
 * (lock operations) are synced first, and reused buffers in loops stay
 * correct.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4
#define BLOCK (64 * 1024)
#define BLOCKS 512

static unsigned char ring[SLOTS][BLOCK];
static size_t ring_len[SLOTS];
static unsigned head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void fill(unsigned char *block, size_t len, uint32_t *x) {
    for (size_t i = 0; i < len; i++) {
        *x = *x * 1103515245u + 12345u;
        block[i] = (unsigned char)(*x >> 16);
    }
}

static size_t block_len(unsigned b) { return BLOCK - (b * 977) % 4096; /* variable length */ }

/* Double-buffered producer: copies block b into its ring slot, generates
 * block b+1 while that copy runs, then publishes slot b under the lock. */
static void *producer(void *arg) {
    (void)arg;
    unsigned char *block[2] = {malloc(BLOCK), malloc(BLOCK)};
    uint32_t x = 12345;
    fill(block[0], block_len(0), &x);
    for (unsigned b = 0; b < BLOCKS; b++) {
        pthread_mutex_lock(&lock);
        while (head - tail == SLOTS)
            pthread_cond_wait(&not_full, &lock);
        unsigned slot = head % SLOTS;
        pthread_mutex_unlock(&lock);
        /* The slot is ours until head moves: copy outside the lock. */
        size_t len = block_len(b);
        memcpy(ring[slot], block[b % 2], len);
        ring_len[slot] = len;
        if (b + 1 < BLOCKS)
            fill(block[(b + 1) % 2], block_len(b + 1), &x);
        pthread_mutex_lock(&lock);
        head++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    free(block[0]);
    free(block[1]);
    return NULL;
}

static uint64_t fold(uint64_t sum, const unsigned char *p, size_t len) {
    for (size_t i = 0; i < len; i++)
        sum = sum * 31 + p[i];
    return sum;
}

/* Double-buffered consumer: copies slot b out, folds block b-1 into the
 * checksum while that copy runs, then releases slot b. */
int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    unsigned char *out[2] = {malloc(BLOCK), malloc(BLOCK)};
    size_t out_len[2] = {0, 0};
    uint64_t sum = 0, bytes = 0;
    for (unsigned b = 0; b <= BLOCKS; b++) {
        if (b < BLOCKS) {
            pthread_mutex_lock(&lock);
            while (head == tail)
                pthread_cond_wait(&not_empty, &lock);
            unsigned slot = tail % SLOTS;
            pthread_mutex_unlock(&lock);
            size_t len = ring_len[slot];
            memcpy(out[b % 2], ring[slot], len);
            out_len[b % 2] = len;
        }
        if (b > 0) {
            sum = fold(sum, out[(b - 1) % 2], out_len[(b - 1) % 2]);
            bytes += out_len[(b - 1) % 2];
        }
        if (b < BLOCKS) {
            pthread_mutex_lock(&lock);
            tail++;
            pthread_cond_signal(&not_full);
            pthread_mutex_unlock(&lock);
        }
    }
    pthread_join(t, NULL);
    free(out[0]);
    free(out[1]);
    printf("blocks=%d bytes=%llu sum=%016llx\n", BLOCKS, (unsigned long long)bytes, (unsigned long long)sum);
    return 0;
}
