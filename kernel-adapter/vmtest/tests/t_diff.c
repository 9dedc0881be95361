// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Differential test: copies through /dev/copier against memcpy, with random
 * sizes (0 B .. 1 MiB, biased to small) and alignments, up to 48 tasks in
 * flight; then the task kinds the service treats specially: barriers,
 * overlapping moves, lazy tasks, faulting ranges (unmapped, read-only,
 * PROT_NONE), demand-paged destinations and completion handlers.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define AREA (8u << 20)
#define INFLIGHT 48

static unsigned long long seed = 0x9e3779b97f4a7c15ULL;

static size_t rand_len(void)
{
	unsigned long long r = vmtest_rand(&seed);

	switch (r % 8) {
	case 0: return r >> 8 & 63;
	case 1: case 2: return r >> 8 & 4095;
	case 3: case 4: return r >> 8 & 65535;
	case 5: return (r >> 8 & 262143) + 1;
	default: return (r >> 8) % (1u << 20);
	}
}

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* Random copies into disjoint destination slices, checked against memcpy. */
static void random_copies(struct cu_client *c, int rounds)
{
	unsigned char *src = map_anon(AREA, PROT_READ | PROT_WRITE);
	unsigned char *dst = map_anon(AREA, PROT_READ | PROT_WRITE);
	unsigned char *ref = map_anon(AREA, PROT_READ | PROT_WRITE);
	size_t i;

	for (i = 0; i < AREA; i += 8) {
		unsigned long long v = vmtest_rand(&seed);

		memcpy(src + i, &v, 8);
	}
	for (int r = 0; r < rounds; r++) {
		int64_t pos[INFLIGHT];
		size_t off = 0;
		int n = 0;

		memset(dst, 0xa5, AREA);
		memset(ref, 0xa5, AREA);
		while (n < INFLIGHT) {
			size_t len = rand_len();
			size_t doff = off + (vmtest_rand(&seed) & 127);
			size_t soff = vmtest_rand(&seed) % (AREA - len);

			if (doff + len > AREA)
				break;
			memcpy(ref + doff, src + soff, len);
			pos[n] = cu_submit_retry(c, dst + doff, src + soff, len, 0);
			CHECK(pos[n] >= 0, "submit");
			n++;
			off = doff + len;
		}
		for (int k = n - 1; k >= 0; k--)
			CHECK(cu_wait(c, pos[k]) == 0, "task %d re-executed", k);
		CHECK(memcmp(dst, ref, AREA) == 0, "round %d differs from memcpy", r);
	}
	munmap(src, AREA);
	munmap(dst, AREA);
	munmap(ref, AREA);
}

static void barriers(struct cu_client *c)
{
	size_t len = 300000;
	unsigned char *x = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned char *y = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned char *z = map_anon(len, PROT_READ | PROT_WRITE);
	int64_t a, b, m;

	for (int rep = 0; rep < 20; rep++) {
		memset(x, rep + 1, len);
		a = cu_submit_retry(c, y, x, len, 0);
		b = cu_submit_retry(c, NULL, NULL, 0, COPIER_F_BARRIER);
		m = cu_submit_retry(c, z, y, len, 0);
		cu_wait(c, m);
		CHECK(cu_done(c, a) && cu_done(c, b), "barrier let a later task finish first");
		CHECK(z[0] == rep + 1 && z[len - 1] == rep + 1, "copy after barrier saw old bytes");
	}
	munmap(x, len);
	munmap(y, len);
	munmap(z, len);
}

static void moves_and_lazy(struct cu_client *c)
{
	size_t len = 100000;
	unsigned char *buf = map_anon(2 * len, PROT_READ | PROT_WRITE);
	unsigned char *ref = map_anon(2 * len, PROT_READ | PROT_WRITE);
	int64_t pos;

	for (size_t i = 0; i < 2 * len; i++)
		buf[i] = ref[i] = (unsigned char)(i * 7);
	memmove(ref + 1000, ref, len);
	pos = cu_submit_retry(c, buf + 1000, buf, len, COPIER_F_MOVE);
	CHECK(cu_wait(c, pos) == 1, "overlapping move must come back to the caller");
	CHECK(memcmp(buf, ref, 2 * len) == 0, "overlapping move differs from memmove");

	memset(buf, 1, len);
	memset(buf + len, 2, len);
	pos = cu_submit_retry(c, buf, buf + len, len, COPIER_F_LAZY);
	CHECK(cu_wait(c, pos) == 1, "lazy task must be executed by its csync");
	CHECK(buf[0] == 2 && buf[len - 1] == 2, "lazy task not executed");
	munmap(buf, 2 * len);
	munmap(ref, 2 * len);
}

static const unsigned char rodata[8192] = { 1, 2, 3 };

static void faults(struct cu_client *c)
{
	size_t len = 3 * 4096 + 100;
	unsigned char *ok = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned char *none = map_anon(len, PROT_NONE);
	unsigned char *ro = map_anon(len, PROT_READ);
	unsigned char *hole = map_anon(len, PROT_READ | PROT_WRITE);
	struct { void *d; const void *s; } cases[] = {
		{ ok, none }, { none, ok }, { ro, ok }, { (void *)rodata, ok }, { hole, ok },
	};
	int64_t pos;

	munmap(hole, len);
	memset(ok, 7, len);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pos = cu_submit_retry(c, cases[i].d, cases[i].s, len, 0);
		CHECK(cu_settle(c, pos) == 1, "case %u: settled without a fault", i);
		CHECK(cu_desc_flags(c, pos) & COPIER_D_FAULTED, "case %u: no fault reported", i);
		cu_fail(c, pos);
	}
	CHECK(rodata[0] == 1 && rodata[4096] == 0, "a read-only page was written");
	munmap(ok, len);
	munmap(none, len);
	munmap(ro, len);
}

/* One task larger than a round and than 1024 default segments. */
static void big_task(struct cu_client *c)
{
	size_t len = (48u << 20) + 12345;
	unsigned char *src = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned char *dst = map_anon(len, PROT_READ | PROT_WRITE);
	int64_t pos;

	for (size_t i = 0; i < len; i += 4096)
		src[i] = (unsigned char)(i >> 12);
	src[len - 1] = 0x77;
	pos = cu_submit_retry(c, dst + 1, src, len - 1, 0);
	CHECK(cu_wait(c, pos) == 0, "big task re-executed");
	CHECK(memcmp(dst + 1, src, len - 1) == 0, "big task differs");
	munmap(src, len);
	munmap(dst, len);
}

static void demand_paging_and_handlers(struct cu_client *c)
{
	size_t len = 1 << 20;
	unsigned char *src = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned char *fresh = map_anon(len, PROT_READ | PROT_WRITE);
	struct copier_handler_entry h;
	struct copier_stats st;
	int64_t pos;

	memset(src, 0x5a, len);
	pos = cu_submit_retry(c, fresh, src, len, 0);
	cu_wait(c, pos);
	CHECK(fresh[0] == 0x5a && fresh[len - 1] == 0x5a, "untouched destination not filled");

	while (cu_pop_handler(c, &h))
		;
	pos = cu_submit_full(c, fresh, src, 4096, 0, 0x1234, 0x5678);
	CHECK(pos >= 0, "submit with handler");
	cu_wait(c, pos);
	/* the handler is queued when the task retires */
	while (cu_tail(c) <= (uint64_t)pos)
		cu_wait(c, pos), cu_wake(c);
	CHECK(cu_pop_handler(c, &h) && h.handler == 0x1234 && h.arg == 0x5678 &&
	      h.dst == (uintptr_t)fresh && h.len == 4096, "handler entry");

	CHECK(ioctl(c->fd, COPIER_IOC_STATS, &st) == 0, "stats");
	CHECK(st.tasks > 0 && st.bytes > 0 && st.faults > 0 && st.rounds > 0,
	      "stats tasks %llu bytes %llu faults %llu rounds %llu", (unsigned long long)st.tasks,
	      (unsigned long long)st.bytes, (unsigned long long)st.faults,
	      (unsigned long long)st.rounds);
	munmap(src, len);
	munmap(fresh, len);
}

int main(int argc, char **argv)
{
	struct cu_client c;
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	int err = cu_open(&c, 64);

	if (err) {
		fprintf(stderr, "cu_open: %s\n", strerror(-err));
		return 2;
	}
	random_copies(&c, rounds);
	barriers(&c);
	moves_and_lazy(&c);
	faults(&c);
	big_task(&c);
	demand_paging_and_handlers(&c);
	cu_close(&c);
	return vmtest_exit("t_diff");
}
