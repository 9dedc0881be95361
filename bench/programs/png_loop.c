/*
 * libpng encode and decode loop for bench/programs/run.sh: a fixed
 * WIDTH x HEIGHT RGBA image (smooth gradients plus deterministic noise,
 * like a photograph's mix of flat and busy regions) encoded to memory with
 * libpng's simplified API, then decoded back, ROUNDS times each.
 *
 * Usage: png_loop [WIDTH] [HEIGHT] [ROUNDS]   (default 1024 1024 10)
 * Prints "encode_ns_per_round=<n> decode_ns_per_round=<n> png_bytes=<n>
 * checksum=<hex>"; the checksum covers the decoded pixels and is the same
 * for every build. Exits 1 when libpng reports an error or a round trip
 * differs.
 */
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
    png_uint_32 w = argc > 1 ? (png_uint_32)strtoul(argv[1], NULL, 10) : 1024;
    png_uint_32 h = argc > 2 ? (png_uint_32)strtoul(argv[2], NULL, 10) : 1024;
    int rounds = argc > 3 ? atoi(argv[3]) : 10;
    if (w == 0 || h == 0 || rounds <= 0) {
        fprintf(stderr, "usage: png_loop [WIDTH] [HEIGHT] [ROUNDS] (all positive)\n");
        return 2;
    }
    size_t n = (size_t)w * h * 4;
    png_bytep pixels = malloc(n), back = malloc(n);
    if (!pixels || !back) {
        fprintf(stderr, "png_loop: out of memory\n");
        return 1;
    }
    uint32_t x = 12345;
    for (png_uint_32 r = 0; r < h; r++)
        for (png_uint_32 c = 0; c < w; c++) {
            png_bytep p = pixels + ((size_t)r * w + c) * 4;
            x = x * 1103515245u + 12345u;
            int noise = (c / 64 + r / 64) % 3 == 0 ? (int)(x >> 27) : 0;
            p[0] = (png_byte)(r * 255 / h + noise);
            p[1] = (png_byte)(c * 255 / w + noise);
            p[2] = (png_byte)((r + c) / 4 + noise);
            p[3] = 255;
        }

    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGBA;
    png_alloc_size_t cap = 0;
    if (!png_image_write_to_memory(&img, NULL, &cap, 0, pixels, 0, NULL)) {
        fprintf(stderr, "png_loop: %s\n", img.message);
        return 1;
    }
    png_bytep png = malloc(cap);
    png_alloc_size_t len = 0;
    uint64_t t0 = now_ns();
    for (int i = 0; i < rounds; i++) {
        len = cap;
        if (!png_image_write_to_memory(&img, png, &len, 0, pixels, 0, NULL)) {
            fprintf(stderr, "png_loop: %s\n", img.message);
            return 1;
        }
    }
    uint64_t enc = now_ns() - t0;

    uint64_t sum = 0;
    t0 = now_ns();
    for (int i = 0; i < rounds; i++) {
        png_image in;
        memset(&in, 0, sizeof in);
        in.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_memory(&in, png, len)) {
            fprintf(stderr, "png_loop: %s\n", in.message);
            return 1;
        }
        in.format = PNG_FORMAT_RGBA;
        if (!png_image_finish_read(&in, NULL, back, 0, NULL)) {
            fprintf(stderr, "png_loop: %s\n", in.message);
            return 1;
        }
        for (size_t j = 0; j < n; j += 61)
            sum = sum * 31 + back[j];
    }
    uint64_t dec = now_ns() - t0;
    if (memcmp(pixels, back, n) != 0) {
        fprintf(stderr, "png_loop: decoded pixels differ\n");
        return 1;
    }
    printf("encode_ns_per_round=%llu decode_ns_per_round=%llu png_bytes=%llu checksum=%016llx\n",
           (unsigned long long)(enc / (uint64_t)rounds), (unsigned long long)(dec / (uint64_t)rounds),
           (unsigned long long)len, (unsigned long long)sum);
    return 0;
}
