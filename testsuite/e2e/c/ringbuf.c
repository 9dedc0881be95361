/*
 * Two threads hand 64 KiB blocks through a ring of slots guarded by a mutex
 * and condition variables: the producer memcpy's each block into a slot, the
 * consumer memcpy's it out and folds it into a checksum. Proves: copies
 * whose buffers are handed to another thread (lock operations) are synced
 * first, and reused buffers in loops stay correct.
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

static void *producer(void *arg) {
    (void)arg;
    unsigned char *block = malloc(BLOCK);
    uint32_t x = 12345;
    for (unsigned b = 0; b < BLOCKS; b++) {
        size_t len = BLOCK - (b * 977) % 4096; /* variable length */
        for (size_t i = 0; i < len; i++) {
            x = x * 1103515245u + 12345u;
            block[i] = (unsigned char)(x >> 16);
        }
        pthread_mutex_lock(&lock);
        while (head - tail == SLOTS)
            pthread_cond_wait(&not_full, &lock);
        memcpy(ring[head % SLOTS], block, len);
        ring_len[head % SLOTS] = len;
        head++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    free(block);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    unsigned char *out = malloc(BLOCK);
    uint64_t sum = 0, bytes = 0;
    for (unsigned b = 0; b < BLOCKS; b++) {
        pthread_mutex_lock(&lock);
        while (head == tail)
            pthread_cond_wait(&not_empty, &lock);
        size_t len = ring_len[tail % SLOTS];
        memcpy(out, ring[tail % SLOTS], len);
        tail++;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
        for (size_t i = 0; i < len; i++)
            sum = sum * 31 + out[i];
        bytes += len;
    }
    pthread_join(t, NULL);
    free(out);
    printf("blocks=%d bytes=%llu sum=%016llx\n", BLOCKS, (unsigned long long)bytes, (unsigned long long)sum);
    return 0;
}
