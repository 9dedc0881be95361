/* Copy-use windows of an unmodified program, by LD_PRELOAD
 * (bench/programs/README.md, "Copy-use windows").
 *
 *   clang-22 -O2 -shared -fPIC bench/programs/window_trace.c -o window_trace.so -ldl -lpthread
 *   WINDOW_TRACE_OUT=FILE [WINDOW_TRACE_MIN=BYTES] LD_PRELOAD=./window_trace.so PROGRAM...
 *
 * Follows every memcpy/memmove of at least WINDOW_TRACE_MIN bytes (default
 * 16384, the runtime's threshold) from the call to the first event that
 * ends its window: the kernel reading the destination (write, writev,
 * send, sendto, sendmsg with a buffer overlapping it), a later
 * memcpy/memmove reading it (src overlaps) or overwriting it (dst
 * overlaps), or free() of a block it overlaps (malloc_usable_size). Plain loads and
 * stores are invisible to it: a window it reports is an upper bound on the
 * time to the first use. At exit it appends one line per (caller, end) pair
 * to FILE: the caller's module and offset (resolve with
 * `addr2line -f -e MODULE OFFSET`), the ending event, the copies, their
 * mean bytes, and the median, 90th percentile and mean window in
 * microseconds; copies still open at exit count as "open". Up to 4096
 * copies are followed at once (the oldest is dropped, counted as
 * "evicted"). Thread-safe (one lock); the program must not call these
 * functions from signal handlers while the lock is held.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define OPEN_MAX 4096
#define SITES 256
#define SAMPLES 4096

enum end { END_KERNEL, END_READ, END_OVERWRITE, END_FREE, END_OPEN, END_EVICTED, END_KINDS };
static const char *end_name[END_KINDS] = {"kernel-read", "copied-from", "overwritten", "freed", "open", "evicted"};

struct open_copy {
  uintptr_t dst;
  size_t len;
  uint64_t t;
  void *caller;
};
struct site {
  void *caller;
  int end;
  uint64_t copies, bytes;
  uint32_t n_samples;
  double sum_us;
  float samples[SAMPLES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct open_copy open_copies[OPEN_MAX];
static unsigned n_open, next_slot;
static struct site sites[SITES];
static size_t min_bytes = 16384;
static int ready;
static __thread int busy;
static void *(*real_memcpy)(void *, const void *, size_t);
static void *(*real_memmove)(void *, const void *, size_t);
static void (*real_free)(void *);
static size_t (*real_usable)(void *);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void record(const struct open_copy *c, int end, uint64_t t) {
  struct site *s = NULL;
  for (int i = 0; i < SITES; i++)
    if (sites[i].copies == 0 || (sites[i].caller == c->caller && sites[i].end == end)) {
      s = &sites[i];
      break;
    }
  if (!s)
    return;
  s->caller = c->caller;
  s->end = end;
  s->copies++;
  s->bytes += c->len;
  double us = (double)(t - c->t) / 1000.0;
  s->sum_us += us;
  if (s->n_samples < SAMPLES)
    s->samples[s->n_samples++] = (float)us;
}

/* Ends every open copy whose destination overlaps [p, p+n). */
static void end_overlapping(const void *p, size_t n, int end) {
  uintptr_t a = (uintptr_t)p;
  uint64_t t = 0;
  for (unsigned i = 0; i < n_open;) {
    struct open_copy *c = &open_copies[i];
    int hit = c->dst < a + n && a < c->dst + c->len;
    if (hit) {
      if (!t)
        t = now_ns();
      record(c, end, t);
      open_copies[i] = open_copies[--n_open];
    } else {
      i++;
    }
  }
}

static void track(void *dst, const void *src, size_t n, void *caller) {
  if (!ready || busy || n < min_bytes)
    return;
  busy = 1;
  pthread_mutex_lock(&lock);
  end_overlapping(src, n, END_READ);
  end_overlapping(dst, n, END_OVERWRITE);
  if (n_open == OPEN_MAX) {
    record(&open_copies[next_slot % OPEN_MAX], END_EVICTED, now_ns());
    open_copies[next_slot % OPEN_MAX] = open_copies[--n_open];
    next_slot++;
  }
  open_copies[n_open++] = (struct open_copy){(uintptr_t)dst, n, now_ns(), caller};
  pthread_mutex_unlock(&lock);
  busy = 0;
}

static void kernel_reads(const void *p, size_t n) {
  if (!ready || busy || !n_open)
    return;
  busy = 1;
  pthread_mutex_lock(&lock);
  end_overlapping(p, n, END_KERNEL);
  pthread_mutex_unlock(&lock);
  busy = 0;
}

static void byte_copy(void *d, const void *s, size_t n) {
  volatile unsigned char *dd = d;
  const unsigned char *ss = s;
  if (dd < ss)
    for (size_t i = 0; i < n; i++)
      dd[i] = ss[i];
  else
    for (size_t i = n; i > 0; i--)
      dd[i - 1] = ss[i - 1];
}

void *memcpy(void *d, const void *s, size_t n) {
  if (!real_memcpy) {
    byte_copy(d, s, n);
    return d;
  }
  track(d, s, n, __builtin_return_address(0));
  return real_memcpy(d, s, n);
}
void *memmove(void *d, const void *s, size_t n) {
  if (!real_memmove) {
    byte_copy(d, s, n);
    return d;
  }
  track(d, s, n, __builtin_return_address(0));
  return real_memmove(d, s, n);
}
void free(void *p) {
  if (p && ready && !busy && n_open) {
    busy = 1;
    pthread_mutex_lock(&lock);
    end_overlapping(p, real_usable ? real_usable(p) : 1, END_FREE);
    pthread_mutex_unlock(&lock);
    busy = 0;
  }
  if (real_free)
    real_free(p);
}
ssize_t write(int fd, const void *b, size_t n) {
  kernel_reads(b, n);
  return real_write(fd, b, n);
}
ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  for (int i = 0; i < cnt; i++)
    kernel_reads(iov[i].iov_base, iov[i].iov_len);
  return real_writev(fd, iov, cnt);
}
ssize_t send(int fd, const void *b, size_t n, int f) {
  kernel_reads(b, n);
  return real_send(fd, b, n, f);
}
ssize_t sendto(int fd, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l) {
  kernel_reads(b, n);
  return real_sendto(fd, b, n, f, a, l);
}
ssize_t sendmsg(int fd, const struct msghdr *m, int f) {
  for (size_t i = 0; i < m->msg_iovlen; i++)
    kernel_reads(m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
  return real_sendmsg(fd, m, f);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("WINDOW_TRACE_OUT");
  if (!ready || !path)
    return;
  busy = 1;
  pthread_mutex_lock(&lock);
  uint64_t t = now_ns();
  while (n_open) {
    record(&open_copies[n_open - 1], END_OPEN, t);
    n_open--;
  }
  FILE *f = fopen(path, "a");
  if (f) {
    for (int i = 0; i < SITES && sites[i].copies; i++) {
      struct site *s = &sites[i];
      Dl_info info = {0};
      const char *mod = "?";
      uintptr_t off = (uintptr_t)s->caller;
      if (dladdr(s->caller, &info) && info.dli_fname) {
        mod = info.dli_fname;
        off -= (uintptr_t)info.dli_fbase;
      }
      qsort(s->samples, s->n_samples, sizeof(float), cmp_float);
      fprintf(f, "window pid=%d caller=%s+0x%lx end=%s copies=%llu mean_bytes=%llu median_us=%.1f p90_us=%.1f mean_us=%.1f\n",
              (int)getpid(), mod, (unsigned long)off, end_name[s->end], (unsigned long long)s->copies,
              (unsigned long long)(s->bytes / s->copies), s->samples[s->n_samples / 2],
              s->samples[(s->n_samples * 9) / 10], s->sum_us / (double)s->copies);
    }
    fclose(f);
  }
  pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void init(void) {
  const char *m = getenv("WINDOW_TRACE_MIN");
  if (m)
    min_bytes = strtoull(m, NULL, 10);
  real_write = dlsym(RTLD_NEXT, "write");
  real_writev = dlsym(RTLD_NEXT, "writev");
  real_send = dlsym(RTLD_NEXT, "send");
  real_sendto = dlsym(RTLD_NEXT, "sendto");
  real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
  real_free = dlsym(RTLD_NEXT, "free");
  real_usable = dlsym(RTLD_NEXT, "malloc_usable_size");
  real_memmove = dlsym(RTLD_NEXT, "memmove");
  real_memcpy = dlsym(RTLD_NEXT, "memcpy");
  ready = 1;
}
