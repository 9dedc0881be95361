/* The load client of the TinyProxy benchmark (bench/programs/README.md).
 *
 *   http_load PROXY_PORT ORIGIN_PORT SIZE SECONDS CONNS
 *
 * CONNS threads, each in a loop until SECONDS have passed: connect to
 * 127.0.0.1:PROXY_PORT, send "GET http://127.0.0.1:ORIGIN_PORT/SIZE
 * HTTP/1.0", read the response to EOF, check that it is a 200 whose body is
 * exactly http_origin's SIZE bytes. PROXY_PORT 0 asks the origin directly
 * (the client's own ceiling). Prints the body throughput in MB/s (10^6
 * bytes per second of wall time) on stdout, and on stderr the request
 * count and the client's CPU time per wall second (summed over its
 * threads: near the number of cores means the client is the bottleneck).
 * Exit status 1 on a failed or wrong response, 2 on bad arguments.
 */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned proxy_port, origin_port;
static size_t size;
static double deadline;
static unsigned char *expect;
static atomic_ulong requests, body_bytes;
static atomic_int failed;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One request; 0 when the response was the expected one. */
static int one_request(unsigned char *buf, size_t cap) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  a.sin_port = htons((unsigned short)(proxy_port ? proxy_port : origin_port));
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
    perror("http_load: connect");
    if (fd >= 0)
      close(fd);
    return -1;
  }
  char req[256];
  int n = proxy_port ? snprintf(req, sizeof req, "GET http://127.0.0.1:%u/%zu HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n\r\n",
                                origin_port, size, origin_port)
                     : snprintf(req, sizeof req, "GET /%zu HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n\r\n", size, origin_port);
  if (write(fd, req, (size_t)n) != n) {
    close(fd);
    return -1;
  }
  size_t len = 0;
  for (;;) {
    if (len == cap) {
      fprintf(stderr, "http_load: response longer than %zu bytes\n", cap);
      close(fd);
      return -1;
    }
    ssize_t r = read(fd, buf + len, cap - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      perror("http_load: read");
      close(fd);
      return -1;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  unsigned char *sep = memmem(buf, len, "\r\n\r\n", 4);
  if (len < 12 || memcmp(buf + 9, "200", 3) != 0 || !sep) {
    fprintf(stderr, "http_load: bad response: %.60s\n", (char *)buf);
    return -1;
  }
  size_t body = len - (size_t)(sep + 4 - buf);
  if (body != size || memcmp(sep + 4, expect, size) != 0) {
    fprintf(stderr, "http_load: body of %zu bytes, %zu expected, or its bytes differ\n", body, size);
    return -1;
  }
  atomic_fetch_add(&requests, 1);
  atomic_fetch_add(&body_bytes, body);
  return 0;
}

static void *worker(void *arg) {
  (void)arg;
  size_t cap = size + 65536;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    atomic_store(&failed, 1);
    return NULL;
  }
  while (!atomic_load(&failed) && now() < deadline)
    if (one_request(buf, cap) != 0)
      atomic_store(&failed, 1);
  free(buf);
  return NULL;
}

static unsigned long number(const char *s, const char *what) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || end == s || *end) {
    fprintf(stderr, "http_load: %s must be a number, not %s\n", what, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: http_load PROXY_PORT ORIGIN_PORT SIZE SECONDS CONNS\n");
    return 2;
  }
  proxy_port = (unsigned)number(argv[1], "PROXY_PORT");
  origin_port = (unsigned)number(argv[2], "ORIGIN_PORT");
  size = number(argv[3], "SIZE");
  double seconds = (double)number(argv[4], "SECONDS");
  unsigned long conns = number(argv[5], "CONNS");
  if (conns == 0 || conns > 256 || size > (16u << 20) || seconds == 0) {
    fprintf(stderr, "http_load: CONNS 1..256, SIZE up to 16 MiB, SECONDS above 0\n");
    return 2;
  }
  expect = malloc(size + 1);
  for (size_t i = 0; i < size; i++)
    expect[i] = (unsigned char)((i * 31 + 7) & 0xff);
  pthread_t t[256];
  double t0 = now();
  deadline = t0 + seconds;
  for (unsigned long i = 0; i < conns; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (unsigned long i = 0; i < conns; i++)
    pthread_join(t[i], NULL);
  double wall = now() - t0;
  if (atomic_load(&failed))
    return 1;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec / 1e6;
  printf("%.3f\n", (double)atomic_load(&body_bytes) / 1e6 / wall);
  fprintf(stderr, "http_load: size=%zu requests=%lu wall_s=%.3f client_cpu_per_wall_s=%.2f\n", size,
          atomic_load(&requests), wall, cpu / wall);
  return 0;
}
