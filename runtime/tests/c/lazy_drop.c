/* Lazy copies after absorption into write, and copier_drop: under
 * COPIER_OPTIONS=defer_absorbed=1 a copy whose whole destination went to
 * the kernel (copier_write) becomes lazy; it runs when the destination is
 * read (csync), is dropped when a later copy overwrites the destination or
 * when copier_drop discards it, and is never dropped while a later copy
 * still reads its bytes or while it waits for an earlier writer. The bytes
 * every reader (the pipe, csync, a dependent copy, a fork child) sees are
 * memcpy's, with or without defer_absorbed.
 * "strict" (run it under defer_absorbed=1:spawn=0, where a copy runs only
 * when a wait executes it) also checks that a discarded copy never wrote
 * its destination. Exit 0 on success. */
#define _GNU_SOURCE
#include <copier.h>
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (256u << 10) /* above the default 16 KiB threshold */

static int strict;
static unsigned char *buf(unsigned char fill) {
  unsigned char *p = malloc(N);
  if (!p)
    abort();
  memset(p, fill, N);
  return p;
}

static int all(const unsigned char *p, size_t n, unsigned char c) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != c)
      return 0;
  return 1;
}

static int pipefd[2];

/* copier_write all of dst to the pipe and check what arrives. */
static void write_checked(const unsigned char *dst, const unsigned char *want, const char *what) {
  static unsigned char got[N];
  CHECK(copier_write(pipefd[1], dst, N) == (ssize_t)N, "%s: write", what);
  size_t off = 0;
  while (off < N) {
    ssize_t r = read(pipefd[0], got + off, N - off);
    if (r <= 0)
      abort();
    off += (size_t)r;
  }
  CHECK(memcmp(got, want, N) == 0, "%s: the pipe got other bytes than memcpy's", what);
}

/* write, then free: the copy is dropped, never run. */
static void write_then_drop(void) {
  unsigned char *src = buf(0), *dst = buf('x');
  pattern(src, N, 1);
  copier_desc h = copier_submit(dst, src, N, 0, NULL, NULL);
  write_checked(dst, src, "drop");
  if (strict)
    CHECK(copier_query(h, 0, N) == 0, "drop: the copy ran at the write");
  copier_drop(dst, N);
  CHECK(copier_query(h, 0, N) == 1, "drop: still pending after copier_drop");
  if (strict)
    CHECK(all(dst, N, 'x'), "drop: a dropped copy wrote its destination");
  free(dst);
  free(src);
}

/* write, then read: the lazy copy runs at the csync. */
static void write_then_read(void) {
  unsigned char *src = buf(0), *dst = buf('x');
  pattern(src, N, 2);
  amemcpy(dst, src, N);
  write_checked(dst, src, "read");
  csync(dst + N / 2, 1);
  CHECK(dst[N / 2] == src[N / 2], "read: csync of one byte");
  csync(dst, N);
  CHECK(memcmp(dst, src, N) == 0, "read: csync of the whole copy");
  free(dst);
  free(src);
}

/* write, then a later copy overwrites the destination: dropped at its
 * ingest; the destination holds the later copy's bytes. */
static void write_then_overwrite(void) {
  unsigned char *src = buf(0), *src2 = buf(0), *dst = buf('x');
  pattern(src, N, 3);
  pattern(src2, N, 4);
  amemcpy(dst, src, N);
  write_checked(dst, src, "overwrite");
  amemcpy(dst, src2, N);
  csync(dst, N);
  CHECK(memcmp(dst, src2, N) == 0, "overwrite: destination is not the later copy's");
  free(dst);
  free(src2);
  free(src);
}

/* write, then a later copy reads the destination: never dropped; after
 * copier_drop of the destination (and reuse of it) the later copy still
 * has memcpy's bytes (with or without absorption). */
static void write_then_copy_on(void) {
  unsigned char *src = buf(0), *dst = buf('x'), *dst2 = buf('y');
  pattern(src, N, 5);
  amemcpy(dst, src, N);
  write_checked(dst, src, "copy on");
  amemcpy(dst2, dst, N);
  copier_drop(dst, N);
  memset(dst, 'j', N); /* reused */
  csync(dst2, N);
  CHECK(memcmp(dst2, src, N) == 0, "copy on: the later copy lost the bytes");
  free(dst2);
  free(dst);
  free(src);
}

/* Two copies into one destination, write, discard: the second waits for
 * the first, so it is not dropped while the first may still write; after
 * copier_drop nothing writes the destination any more. */
static void two_writers_then_drop(void) {
  unsigned char *a = buf(0), *b = buf(0), *dst = buf('x');
  pattern(a, N, 6);
  pattern(b, N, 7);
  amemcpy(dst, a, N);
  amemcpy(dst, b, N);
  write_checked(dst, b, "two writers");
  copier_drop(dst, N);
  memset(dst, 'j', N);
  csync_all();
  CHECK(all(dst, N, 'j'), "two writers: a copy wrote the destination after copier_drop");
  free(dst);
  free(b);
  free(a);
}

/* Part of the destination written: the copy is not deferred; every
 * reader gets memcpy's bytes. */
static void partial_write(void) {
  unsigned char *src = buf(0), *dst = buf('x');
  static unsigned char got[N / 2];
  pattern(src, N, 8);
  amemcpy(dst, src, N);
  CHECK(copier_write(pipefd[1], dst, N / 2) == (ssize_t)(N / 2), "partial: write");
  size_t off = 0;
  while (off < N / 2) {
    ssize_t r = read(pipefd[0], got + off, N / 2 - off);
    if (r <= 0)
      abort();
    off += (size_t)r;
  }
  CHECK(memcmp(got, src, N / 2) == 0, "partial: wrong bytes");
  copier_drop(dst + N / 2, N / 2);
  csync(dst, N / 2);
  CHECK(memcmp(dst, src, N / 2) == 0, "partial: the first half");
  free(dst);
  free(src);
}

/* write, then fork: the child reads the destination (the fork ran the
 * lazy copy), the parent drops it. */
static void write_then_fork(void) {
  unsigned char *src = buf(0), *dst = buf('x');
  pattern(src, N, 9);
  amemcpy(dst, src, N);
  write_checked(dst, src, "fork");
  pid_t pid = fork();
  if (pid == 0) {
    csync(dst, N);
    _exit(memcmp(dst, src, N) == 0 ? 0 : 1);
  }
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork: the child saw other bytes");
  copier_drop(dst, N);
  free(dst);
  free(src);
}

int main(int argc, char **argv) {
  strict = argc > 1 && strcmp(argv[1], "strict") == 0;
  if (pipe(pipefd) != 0 || fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20) < (int)N)
    abort();
  for (int round = 0; round < 20; round++) {
    write_then_drop();
    write_then_read();
    write_then_overwrite();
    write_then_copy_on();
    two_writers_then_drop();
    partial_write();
  }
  write_then_fork();
  csync_all();
  if (failures) {
    fprintf(stderr, "lazy_drop: %d failures\n", failures);
    return 1;
  }
  printf("lazy_drop: ok\n");
  return 0;
}
