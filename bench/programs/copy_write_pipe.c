/* The copy-then-write pattern of a server's reply path: each round copies
 * SIZE bytes into a fresh malloc'd buffer, writes the buffer to a pipe and
 * frees it; a child process drains the pipe. With CopierGen the write
 * reads the pending copy's source (copier_write), and the copy is
 * submitted lazy and dropped at the free (bench/results/
 * paper-2026-12-01-lazy.txt).
 *
 *   copy_write_pipe [ROUNDS [SIZE]]      (default 2000 rounds of 1 MiB)
 *
 * stdout: the child's checksum of every byte it read (the same for every
 * build); stderr: "copy_write_pipe: ROUNDS x SIZE bytes in S s (US us per
 * round), C s CPU" (C: user + system time of the writing process, its
 * service thread included, not the reader). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static int send_copy(int fd, const unsigned char *src, size_t n) {
  unsigned char *b = malloc(n);
  if (!b)
    return -1;
  memcpy(b, src, n);
  size_t off = 0;
  int rc = 0;
  while (off < n) {
    ssize_t r = write(fd, b + off, n - off);
    if (r <= 0) {
      rc = -1;
      break;
    }
    off += (size_t)r;
  }
  free(b);
  return rc;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 2000;
  size_t size = argc > 2 ? (size_t)atol(argv[2]) : (size_t)1 << 20;
  int p[2];
  if (rounds <= 0 || size == 0 || pipe(p) != 0)
    return 2;
  fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[1]);
    static unsigned char in[1 << 16];
    unsigned long long h = 0, total = 0;
    ssize_t r;
    while ((r = read(p[0], in, sizeof in)) > 0) {
      for (ssize_t i = 0; i < r; i += 64)
        h = h * 1099511628211ull + in[i];
      total += (unsigned long long)r;
    }
    printf("%llu bytes, checksum %016llx\n", total, h);
    return 0;
  }
  close(p[0]);
  unsigned char *src = malloc(size);
  if (!src)
    return 2;
  for (size_t i = 0; i < size; i++)
    src[i] = (unsigned char)(i * 7 + (i >> 12));
  double t0 = now();
  for (long k = 0; k < rounds; k++) {
    src[(size_t)k % size] ^= 1; /* every round sends other bytes */
    if (send_copy(p[1], src, size) != 0)
      return 3;
  }
  double t = now() - t0;
  close(p[1]);
  int st = 0;
  waitpid(pid, &st, 0);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  fprintf(stderr, "copy_write_pipe: %ld x %zu bytes in %.3f s (%.1f us per round), %.3f s CPU\n", rounds, size, t, t * 1e6 / (double)rounds, cpu);
  free(src);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 4;
}
