/* The origin server of the TinyProxy benchmark (bench/programs/README.md).
 *
 *   http_origin
 *
 * Listens on 127.0.0.1 on a port the kernel picks, prints that port on
 * stdout, then answers every request "GET <anything>/<SIZE> HTTP/1.x" with
 * an HTTP/1.0 200 response of exactly SIZE body bytes (SIZE up to 16 MiB;
 * byte i of the body is (i * 31 + 7) & 0xff, so a client can check it) and
 * closes the connection. One thread per connection. Anything else gets a
 * 400. Runs until killed. Built with plain clang-22 for both builds of the
 * proxy: only the proxy differs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BODY (16u << 20)

static unsigned char *body;

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads the request head (up to the empty line); returns its length or -1. */
static ssize_t read_head(int fd, char *buf, size_t cap) {
  size_t len = 0;
  while (len + 1 < cap) {
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    len += (size_t)r;
    buf[len] = 0;
    if (strstr(buf, "\r\n\r\n"))
      return (ssize_t)len;
  }
  return -1;
}

static void *serve(void *arg) {
  int fd = (int)(long)arg;
  char req[8192], head[256];
  if (read_head(fd, req, sizeof req) > 0) {
    char *sp = strchr(req, ' '), *end = sp ? strchr(sp + 1, ' ') : NULL;
    char *slash = NULL;
    if (end) {
      *end = 0;
      slash = strrchr(sp + 1, '/');
    }
    char *num_end = NULL;
    unsigned long size = slash ? strtoul(slash + 1, &num_end, 10) : 0;
    if (strncmp(req, "GET ", 4) == 0 && slash && num_end != slash + 1 && *num_end == 0 && size <= MAX_BODY) {
      int n = snprintf(head, sizeof head,
                       "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n"
                       "Content-Length: %lu\r\nConnection: close\r\n\r\n",
                       size);
      if (write_all(fd, head, (size_t)n) == 0)
        write_all(fd, body, size);
    } else {
      static const char bad[] = "HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
      write_all(fd, bad, sizeof bad - 1);
    }
  }
  close(fd);
  return NULL;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  body = malloc(MAX_BODY);
  if (!body) {
    perror("http_origin: malloc");
    return 1;
  }
  for (size_t i = 0; i < MAX_BODY; i++)
    body[i] = (unsigned char)((i * 31 + 7) & 0xff);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 256) < 0 ||
      getsockname(ls, (struct sockaddr *)&a, &alen) < 0) {
    perror("http_origin: listen on 127.0.0.1");
    return 1;
  }
  printf("%u\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) {
    int fd = accept(ls, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      perror("http_origin: accept");
      return 1;
    }
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, serve, (void *)(long)fd) != 0)
      close(fd);
    pthread_attr_destroy(&at);
  }
}
