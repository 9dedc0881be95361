// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * User-space side of /dev/copier (see copier_user.h). Memory orders follow
 * the descriptor protocol of the in-process service (desc.rs): the producer
 * resets a descriptor with release stores, then publishes head (release);
 * waiters load done bits and done_count with acquire, which pairs with the
 * kernel's fully ordered fetch_or after the copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copier_user.h"

#define SEG_SHIFT_MIN 12
#define SPIN_LIMIT 2000

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

int cu_open(struct cu_client *c, uint32_t entries)
{
	return cu_open_version(c, entries, COPIER_ABI_VERSION);
}

int cu_open_version(struct cu_client *c, uint32_t entries, uint32_t version)
{
	struct copier_setup s = {
		.version = version,
		.copy_entries = entries,
		.sync_entries = 16,
		.handler_entries = entries,
	};
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = open("/dev/copier", O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	if (ioctl(c->fd, COPIER_IOC_SETUP, &s) < 0)
		goto fail;
	c->map = mmap(NULL, s.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (c->map == MAP_FAILED)
		goto fail;
	c->map_len = s.map_len;
	c->copy = (void *)((char *)c->map + s.copy_ring_off);
	c->entries = (void *)((char *)c->copy + sizeof(struct copier_ring));
	c->handler = (void *)((char *)c->map + s.handler_ring_off);
	c->handlers = (void *)((char *)c->handler + sizeof(struct copier_ring));
	c->descs = (void *)((char *)c->map + s.desc_off);
	c->nentries = s.copy_entries;
	c->nhandlers = s.handler_entries;
	return 0;
fail:
	err = -errno;
	close(c->fd);
	c->fd = -1;
	return err;
}

void cu_close(struct cu_client *c)
{
	if (c->map && c->map != MAP_FAILED)
		munmap(c->map, c->map_len);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->map = NULL;
}

static struct copier_desc *desc_of(struct cu_client *c, uint64_t pos)
{
	return &c->descs[pos & (c->nentries - 1)];
}

uint64_t cu_tail(struct cu_client *c)
{
	return LOAD_ACQ(&c->copy->tail);
}

void cu_wake(struct cu_client *c)
{
	ioctl(c->fd, COPIER_IOC_WAKE);
}

uint32_t cu_desc_flags(struct cu_client *c, uint64_t pos)
{
	return LOAD_ACQ(&desc_of(c, pos)->flags);
}

/* Write the entry and reset the descriptor of the next task, then publish it. */
static int64_t submit(struct cu_client *c, uint64_t dst, uint64_t src, size_t len, uint32_t flags,
		      uint32_t region, uint64_t handler, uint64_t arg)
{
	uint64_t pos = c->head;
	struct copier_entry *e = &c->entries[pos & (c->nentries - 1)];
	struct copier_desc *d = desc_of(c, pos);
	uint32_t shift = SEG_SHIFT_MIN, nsegs, w;

	if (pos - cu_tail(c) >= c->nentries)
		return -EAGAIN;
	while (len > ((size_t)COPIER_MAX_SEGS << shift))
		shift++;
	nsegs = len ? (uint32_t)((len + (1ULL << shift) - 1) >> shift) : 1;

	e->dst = dst;
	e->src = src;
	e->len = len;
	e->handler = handler;
	e->arg = arg;
	e->flags = flags;
	e->region = region;
	/* descriptor reset, in desc.rs's order: generation first */
	STORE_REL(&d->pos, pos);
	for (w = 0; w < (nsegs + 63) / 64; w++) {
		STORE_REL(&d->words[w].claimed, 0);
		STORE_REL(&d->words[w].done, 0);
	}
	d->nsegs = nsegs;
	d->seg_shift = shift;
	d->prefix = 0;
	d->done_count = 0;
	STORE_REL(&d->flags, 0);

	c->head = pos + 1;
	STORE_REL(&c->copy->head, pos + 1);
	/* pairs with the service's barrier between waiters = 1 and its head reads */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->copy->waiters, __ATOMIC_RELAXED))
		cu_wake(c);
	return (int64_t)pos;
}

int64_t cu_submit_full(struct cu_client *c, void *dst, const void *src, size_t len,
		       uint32_t flags, uint64_t handler, uint64_t arg)
{
	return submit(c, (uintptr_t)dst, (uintptr_t)src, len, flags, 0, handler, arg);
}

int64_t cu_submit_region(struct cu_client *c, void *local, uint32_t handle, uint64_t off,
			 size_t len, bool to_region, uint32_t extra_flags)
{
	if (to_region)
		return submit(c, off, (uintptr_t)local, len, COPIER_F_DST_REGION | extra_flags,
			      handle, 0, 0);
	return submit(c, (uintptr_t)local, off, len, COPIER_F_SRC_REGION | extra_flags, handle,
		      0, 0);
}

int cu_wait_error(struct cu_client *c, uint64_t pos)
{
	struct copier_desc *d = desc_of(c, pos);
	struct copier_wait w = { .pos = pos };
	int spins = 0;

	/* as cu_settle, but a region task is never the caller's, lazy or not */
	while (!cu_done(c, pos)) {
		if (LOAD_ACQ(&d->flags) & COPIER_D_FAULTED)
			return -EPROTO;	/* handed back: a region task never is */
		if (spins < SPIN_LIMIT) {
			spins++;
			__builtin_ia32_pause();
			continue;
		}
		if (ioctl(c->fd, COPIER_IOC_WAIT, &w) < 0 && errno != EINTR)
			return -errno;
	}
	if (LOAD_ACQ(&d->flags) & COPIER_D_ERROR)
		return (int)LOAD_ACQ(&d->error);
	return 0;
}

int cu_bind(struct cu_client *c, void *addr, size_t len, uint32_t access, uint64_t *token)
{
	struct copier_bind b = { .addr = (uintptr_t)addr, .len = len, .access = access };

	if (ioctl(c->fd, COPIER_IOC_BIND, &b) < 0)
		return -errno;
	*token = b.token;
	return 0;
}

int cu_unbind(struct cu_client *c, uint64_t token)
{
	struct copier_unbind u = { .token = token };

	return ioctl(c->fd, COPIER_IOC_UNBIND, &u) < 0 ? -errno : 0;
}

int cu_attach(struct cu_client *c, int pid, uint64_t token, uint32_t *handle, uint64_t *len)
{
	struct copier_attach a = { .pid = pid, .token = token };

	if (ioctl(c->fd, COPIER_IOC_ATTACH, &a) < 0)
		return -errno;
	*handle = a.handle;
	if (len)
		*len = a.len;
	return 0;
}

int cu_detach(struct cu_client *c, uint32_t handle)
{
	struct copier_detach d = { .handle = handle };

	return ioctl(c->fd, COPIER_IOC_DETACH, &d) < 0 ? -errno : 0;
}

bool cu_done(struct cu_client *c, uint64_t pos)
{
	struct copier_desc *d = desc_of(c, pos);

	if ((int64_t)(pos - cu_tail(c)) < 0 || LOAD_ACQ(&d->pos) != pos)
		return true;
	return LOAD_ACQ(&d->done_count) >= d->nsegs;
}

static uint64_t word_mask(uint32_t lo, uint32_t hi)
{
	uint64_t m = hi - lo == 64 ? ~0ULL : (1ULL << (hi - lo)) - 1;

	return m << lo;
}

/* Claim every unclaimed segment of the task; f(lo, hi) each claimed run. */
static void claim_rest(struct copier_desc *d, uint32_t nsegs,
		       void (*f)(struct copier_desc *, uint64_t, uint32_t, uint32_t, void *),
		       uint64_t bits_ctx, void *ctx)
{
	uint32_t w;

	for (w = 0; w < (nsegs + 63) / 64; w++) {
		uint32_t end = (nsegs < (w + 1) * 64 ? nsegs : (w + 1) * 64) - w * 64;
		uint64_t mask = word_mask(0, end);
		uint64_t got = mask & ~__atomic_fetch_or(&d->words[w].claimed, mask, __ATOMIC_ACQ_REL);

		while (got) {
			uint32_t lo = __builtin_ctzll(got);
			uint64_t rest = ~(got >> lo);
			uint32_t len = rest ? __builtin_ctzll(rest) : 64;

			f(d, bits_ctx, w * 64 + lo, w * 64 + lo + len, ctx);
			got &= ~word_mask(lo, lo + len);
		}
	}
}

static void complete_run(struct copier_desc *d, uint32_t lo, uint32_t hi)
{
	uint32_t w = lo / 64, n = d->nsegs, p, q;

	__atomic_fetch_or(&d->words[w].done, word_mask(lo - w * 64, hi - w * 64), __ATOMIC_ACQ_REL);
	/* completed-prefix counter: advance past every leading done segment */
	p = LOAD_ACQ(&d->prefix);
	for (;;) {
		q = p;
		while (q < n) {
			uint64_t bits = LOAD_ACQ(&d->words[q / 64].done) >> (q % 64);
			uint32_t ones = ~bits ? __builtin_ctzll(~bits) : 64;

			if (ones > 64 - q % 64)
				ones = 64 - q % 64;
			if (!ones)
				break;
			q = q + ones < n ? q + ones : n;
		}
		if (q <= p)
			break;
		if (__atomic_compare_exchange_n(&d->prefix, &p, q, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			p = q;
		else if (p >= q)
			break;
	}
	__atomic_fetch_add(&d->done_count, hi - lo, __ATOMIC_ACQ_REL);
}

struct reexec {
	struct copier_entry e;
};

static void run_copy(struct copier_desc *d, uint64_t shift, uint32_t lo, uint32_t hi, void *ctx)
{
	struct reexec *r = ctx;
	uint64_t off = (uint64_t)lo << shift, end = (uint64_t)hi << shift;

	if (end > r->e.len)
		end = r->e.len;
	if (end > off)
		memmove((char *)(uintptr_t)r->e.dst + off, (char *)(uintptr_t)r->e.src + off,
			end - off);
	complete_run(d, lo, hi);
}

static void run_fail(struct copier_desc *d, uint64_t shift, uint32_t lo, uint32_t hi, void *ctx)
{
	complete_run(d, lo, hi);
}

/* Execute what the service left of the task at pos, then let it retire. */
static void finish_here(struct cu_client *c, uint64_t pos, bool copy)
{
	struct copier_desc *d = desc_of(c, pos);
	struct reexec r = { .e = c->entries[pos & (c->nentries - 1)] };

	if (!copy)
		__atomic_fetch_or(&d->flags, COPIER_D_FAILED, __ATOMIC_ACQ_REL);
	for (;;) {
		claim_rest(d, d->nsegs, copy ? run_copy : run_fail, d->seg_shift, &r);
		if (cu_done(c, pos))
			break;
		/* a service piece of this task is still in flight */
		sched_yield();
	}
	cu_wake(c);
}

void cu_fail(struct cu_client *c, uint64_t pos)
{
	finish_here(c, pos, false);
}

int cu_settle(struct cu_client *c, uint64_t pos)
{
	struct copier_desc *d = desc_of(c, pos);
	struct copier_wait w = { .pos = pos };
	int spins = 0;

	for (;;) {
		if (cu_done(c, pos))
			return 0;
		if ((LOAD_ACQ(&d->flags) & COPIER_D_FAULTED) ||
		    (c->entries[pos & (c->nentries - 1)].flags & COPIER_F_LAZY))
			return 1;
		if (spins < SPIN_LIMIT) {
			spins++;
			__builtin_ia32_pause();
			continue;
		}
		if (ioctl(c->fd, COPIER_IOC_WAIT, &w) < 0 && errno != EINTR)
			return -errno;
	}
}

int cu_wait(struct cu_client *c, uint64_t pos)
{
	int r = cu_settle(c, pos);

	if (r == 1)
		finish_here(c, pos, true);
	return r;
}

bool cu_pop_handler(struct cu_client *c, struct copier_handler_entry *out)
{
	if (c->handler_tail == LOAD_ACQ(&c->handler->head))
		return false;
	*out = c->handlers[c->handler_tail & (c->nhandlers - 1)];
	c->handler_tail++;
	STORE_REL(&c->handler->tail, c->handler_tail);
	return true;
}

int64_t cu_submit_retry(struct cu_client *c, void *dst, const void *src, size_t len, uint32_t flags)
{
	int64_t pos;

	while ((pos = cu_submit_full(c, dst, src, len, flags, 0, 0)) == -EAGAIN)
		cu_wait(c, cu_tail(c));
	return pos;
}
