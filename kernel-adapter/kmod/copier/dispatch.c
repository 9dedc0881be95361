// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher: runs one exec.h batch on a DMA channel and the CPU
 * engine together.
 *
 * add() only plans. It splits each span at the physical-contiguity
 * boundaries of its pinned pages (a piece ends where the next source or
 * destination page is not the next page frame). A piece at least
 * dma_min_bytes long becomes a DMA piece; the pieces between DMA pieces
 * join into CPU sub-spans (one per stretch, whatever its contiguity). The
 * spans of many small tasks are planned into one batch: one doorbell, one
 * FPU section, one reap.
 *
 * flush() executes the plan, packed:
 *   1. map and submit every DMA piece, then one issue_pending;
 *   2. run the CPU sub-spans through the CPU engine (exec.c) meanwhile;
 *   3. reap: wait once for the DMA callbacks;
 *   4. report each span whose pieces all finished.
 * A DMA piece that fails (mapping, no descriptor, an error result, or no
 * completion within dma_timeout_ms, after which the channel is terminated)
 * is copied by the CPU instead: its pages are still pinned, so a DMA
 * failure never becomes a task fault.
 *
 * Order: the ring is executed as if sequentially. Pieces of one batch run
 * in parallel, so two pieces that conflict (one writes bytes the other
 * reads or writes, compared by physical address, which also catches two
 * mappings of one page) must not be in one plan. Before planning a DMA
 * piece, add() checks it against the planned CPU and DMA pieces; before
 * planning a CPU piece, against the planned DMA pieces (CPU pieces run in
 * plan order). A conflict flushes the plan first. A full plan flushes too.
 *
 * DMA addresses: first the batch's dma_addr hook (the round asks the
 * ATCache, which keeps cached pages mapped for the channel's device), else
 * dma_map_page() on that device over the physically contiguous run, for
 * this pack only (dma-direct maps any physical range; an IOMMU maps the
 * run as one IOVA range).
 */
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dispatch.h"
#include "dma.h"
#include "exec.h"

#define DSP_SPANS 64
#define DSP_DMA 64
#define DSP_CPU 128
#define DSP_CPU_RUNS 512

enum dsp_state { DSP_PENDING, DSP_OK, DSP_FAILED };

/* A planned piece of span @span: a sub-span of its pages, @off bytes in. */
struct dsp_piece {
	struct copier_span s;
	unsigned int span;
	size_t off;
};

/* Physical ranges of a piece, for the conflict check. */
struct dsp_range {
	phys_addr_t dst;
	phys_addr_t src;
	size_t len;
};

struct dsp_dma {
	struct dsp_piece p;		/* physically contiguous on both sides */
	struct copier_dispatch *d;
	dma_addr_t dst;
	dma_addr_t src;
	bool dst_cached;		/* the address came from the dma_addr hook */
	bool src_cached;
	bool mapped;
	bool submitted;
	int state;			/* enum dsp_state; the callback writes it */
};

struct dsp_span {
	void *cookie;
	unsigned int pending;		/* planned pieces not finished */
	bool open;			/* add() is still splitting it */
};

/**
 * struct copier_dispatch - one batch's plan (reused from a free list)
 * @x: the caller's batch, for complete() and the byte counters
 * @chan: the DMA channel of this batch
 * @cpu: the CPU engine's batch for the CPU pieces
 * @left: DMA callbacks outstanding, plus one while flush() submits
 * @done: completed when @left reaches zero
 */
struct copier_dispatch {
	struct copier_exec *x;
	struct dma_chan *chan;
	struct copier_exec cpu;
	atomic_t left;
	struct completion done;
	struct list_head free_node;
	unsigned int nspans, ndma, ncpu, ncpu_runs;
	struct dsp_span spans[DSP_SPANS];
	struct dsp_dma dma[DSP_DMA];
	struct dsp_range dma_ranges[DSP_DMA];
	struct dsp_piece cpu_pieces[DSP_CPU];
	struct dsp_range cpu_runs[DSP_CPU_RUNS];
};

static LIST_HEAD(dsp_free);
static DEFINE_SPINLOCK(dsp_lock);

static bool overlap(phys_addr_t a, phys_addr_t b, size_t len_a, size_t len_b)
{
	return a < b + len_b && b < a + len_a;
}

/* Does r conflict with any of n planned ranges (write/read or write/write)? */
static bool conflicts(const struct dsp_range *r, const struct dsp_range *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (overlap(r->dst, v[i].src, r->len, v[i].len) ||
		    overlap(r->src, v[i].dst, r->len, v[i].len) ||
		    overlap(r->dst, v[i].dst, r->len, v[i].len))
			return true;
	return false;
}

/* Bytes from (dp, doff) / (sp, soff) that are physically contiguous on both sides. */
static size_t contig_len(struct page **dp, size_t doff, struct page **sp, size_t soff,
			 size_t left)
{
	unsigned long dpfn = page_to_pfn(*dp), spfn = page_to_pfn(*sp);
	size_t len = 0;

	for (;;) {
		size_t n = min3(left, PAGE_SIZE - doff, PAGE_SIZE - soff);

		len += n;
		left -= n;
		doff += n;
		soff += n;
		if (!left)
			return len;
		if (doff == PAGE_SIZE) {
			if (page_to_pfn(*++dp) != ++dpfn)
				return len;
			doff = 0;
		}
		if (soff == PAGE_SIZE) {
			if (page_to_pfn(*++sp) != ++spfn)
				return len;
			soff = 0;
		}
	}
}

/* exec.h completion of the CPU engine: one piece of a span finished. */
static void dsp_cpu_done(struct copier_exec *cx, void *cookie, int err)
{
	struct copier_dispatch *d = cx->ctx;
	struct dsp_piece *p = cookie;

	/* the CPU engine does not fail; a span's error would go here */
	WARN_ON_ONCE(err);
	d->spans[p->span].pending--;
}

/* dmaengine completion, in the provider's callback context. */
static void dsp_dma_done(void *arg, const struct dmaengine_result *res)
{
	struct dsp_dma *e = arg;
	struct copier_dispatch *d = e->d;

	WRITE_ONCE(e->state, res->result == DMA_TRANS_NOERROR ? DSP_OK : DSP_FAILED);
	/* pairs with the waiter: complete() orders the state before the wake */
	if (atomic_dec_and_test(&d->left))
		complete(&d->done);
}

/* Step 1: map and submit one DMA piece; false leaves it to the CPU. */
static bool dma_submit(struct copier_dispatch *d, struct dsp_dma *e)
{
	struct device *dev = d->chan->device->dev;
	struct dma_async_tx_descriptor *tx;
	dma_cookie_t cookie;

	struct copier_exec *x = d->x;
	void *span = d->spans[e->p.span].cookie;

	e->d = d;
	e->state = DSP_PENDING;
	e->mapped = false;
	e->submitted = false;
	e->dst_cached = x->dma_addr &&
			x->dma_addr(x, span, true, e->p.off, e->p.s.len, dev, &e->dst);
	if (!e->dst_cached) {
		e->dst = dma_map_page(dev, e->p.s.dst_pages[0], e->p.s.dst_off, e->p.s.len,
				      DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, e->dst))
			return false;
	}
	e->src_cached = x->dma_addr &&
			x->dma_addr(x, span, false, e->p.off, e->p.s.len, dev, &e->src);
	if (!e->src_cached) {
		e->src = dma_map_page(dev, e->p.s.src_pages[0], e->p.s.src_off, e->p.s.len,
				      DMA_TO_DEVICE);
		if (dma_mapping_error(dev, e->src)) {
			if (!e->dst_cached)
				dma_unmap_page(dev, e->dst, e->p.s.len, DMA_FROM_DEVICE);
			return false;
		}
	}
	e->mapped = true;
	tx = dmaengine_prep_dma_memcpy(d->chan, e->dst, e->src, e->p.s.len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx) {
		/* descriptor ring full: start what is queued, copy this one by CPU */
		dma_async_issue_pending(d->chan);
		return false;
	}
	tx->callback_result = dsp_dma_done;
	tx->callback_param = e;
	atomic_inc(&d->left);
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie)) {
		atomic_dec(&d->left);
		return false;
	}
	e->submitted = true;
	return true;
}

static void dma_unmap(struct copier_dispatch *d, struct dsp_dma *e)
{
	struct device *dev = d->chan->device->dev;

	if (!e->mapped)
		return;
	/* cached mappings stay: the ATCache unmaps them with their pins */
	if (!e->src_cached)
		dma_unmap_page(dev, e->src, e->p.s.len, DMA_TO_DEVICE);
	if (!e->dst_cached)
		dma_unmap_page(dev, e->dst, e->p.s.len, DMA_FROM_DEVICE);
	e->mapped = false;
}

/* Report every finished span that add() closed; keep the open one at 0. */
static void report(struct copier_dispatch *d)
{
	unsigned int i, keep = 0;

	for (i = 0; i < d->nspans; i++) {
		struct dsp_span *sp = &d->spans[i];

		if (sp->open || sp->pending) {
			/* only the open span survives a flush: it moves to slot 0 */
			d->spans[keep++] = *sp;
			continue;
		}
		d->x->complete(d->x, sp->cookie, 0);
	}
	d->nspans = keep;
}

/* Execute the plan (steps 1-4 in the head comment) and start a new one. */
static void flush(struct copier_dispatch *d)
{
	struct copier_exec *x = d->x;
	unsigned int i, redo = 0;
	bool issued = false;

	atomic_set(&d->left, 1);
	reinit_completion(&d->done);
	for (i = 0; i < d->ndma; i++)
		issued |= dma_submit(d, &d->dma[i]);
	if (issued)
		dma_async_issue_pending(d->chan);

	if (d->ncpu) {
		copier_exec_cpu_begin(&d->cpu);
		for (i = 0; i < d->ncpu; i++)
			copier_exec_cpu_add(&d->cpu, &d->cpu_pieces[i].s);
		copier_exec_cpu_end(&d->cpu);
		x->bytes_cpu += d->cpu.bytes_cpu;
	}

	if (!atomic_dec_and_test(&d->left) &&
	    !wait_for_completion_timeout(&d->done,
					 msecs_to_jiffies(max(READ_ONCE(copier_dma_timeout_ms), 1U)))) {
		pr_warn_ratelimited("copier: %s: no DMA completion in %u ms, terminating; the CPU copies\n",
				    dma_chan_name(d->chan), copier_dma_timeout_ms);
		/* no callback runs after this: PENDING pieces are redone below */
		dmaengine_terminate_sync(d->chan);
	}
	for (i = 0; i < d->ndma; i++) {
		struct dsp_dma *e = &d->dma[i];

		dma_unmap(d, e);
		if (e->submitted && READ_ONCE(e->state) == DSP_OK) {
			x->bytes_dma += e->p.s.len;
			d->spans[e->p.span].pending--;
		} else {
			redo++;
		}
	}
	if (redo) {
		atomic_long_add(redo, &copier_dma_redone);
		copier_exec_cpu_begin(&d->cpu);
		for (i = 0; i < d->ndma; i++) {
			struct dsp_dma *e = &d->dma[i];

			if (!(e->submitted && READ_ONCE(e->state) == DSP_OK))
				copier_exec_cpu_add(&d->cpu, &e->p.s);
		}
		copier_exec_cpu_end(&d->cpu);
		x->bytes_cpu += d->cpu.bytes_cpu;
	}
	d->ndma = 0;
	d->ncpu = 0;
	d->ncpu_runs = 0;
	report(d);
}

struct copier_dispatch *copier_dispatch_begin(struct copier_exec *x)
{
	struct dma_chan *chan = copier_dma_pick();
	struct copier_dispatch *d = NULL;

	if (!chan)
		return NULL;
	spin_lock(&dsp_lock);
	if (!list_empty(&dsp_free)) {
		d = list_first_entry(&dsp_free, struct copier_dispatch, free_node);
		list_del(&d->free_node);
	}
	spin_unlock(&dsp_lock);
	if (!d) {
		d = kvzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			return NULL;	/* this batch runs on the CPU engine alone */
		init_completion(&d->done);
	}
	d->x = x;
	d->chan = chan;
	d->cpu.complete = dsp_cpu_done;
	d->cpu.ctx = d;
	d->nspans = 0;
	d->ndma = 0;
	d->ncpu = 0;
	d->ncpu_runs = 0;
	return d;
}

/* Plan one span (see the head comment); may flush and report. */
void copier_dispatch_add(struct copier_dispatch *d, const struct copier_span *s)
{
	struct page **dp = s->dst_pages, **sp = s->src_pages;
	size_t doff = s->dst_off, soff = s->src_off, left = s->len;
	size_t min_dma = max_t(size_t, READ_ONCE(copier_dma_min_bytes), 1);
	struct dsp_piece *cur = NULL;	/* the CPU sub-span being extended */
	struct dsp_span *span;
	unsigned int idx;

	if (d->nspans == DSP_SPANS)
		flush(d);
	idx = d->nspans++;
	span = &d->spans[idx];
	span->cookie = s->cookie;
	span->pending = 0;
	span->open = true;

	while (left) {
		size_t n = contig_len(dp, doff, sp, soff, left);
		struct dsp_range r = {
			.dst = page_to_phys(*dp) + doff,
			.src = page_to_phys(*sp) + soff,
			.len = n,
		};

		if (n >= min_dma) {
			if (d->ndma == DSP_DMA ||
			    conflicts(&r, d->cpu_runs, d->ncpu_runs) ||
			    conflicts(&r, d->dma_ranges, d->ndma)) {
				flush(d);
				idx = 0;
				span = &d->spans[0];
			}
			d->dma_ranges[d->ndma] = r;
			d->dma[d->ndma].p = (struct dsp_piece){
				.s = { .dst_pages = dp, .src_pages = sp, .dst_off = doff,
				       .src_off = soff, .len = n },
				.span = idx,
				.off = s->len - left,
			};
			d->dma[d->ndma].p.s.cookie = &d->dma[d->ndma].p;
			d->ndma++;
			span->pending++;
			cur = NULL;
		} else {
			if (d->ncpu_runs == DSP_CPU_RUNS || (!cur && d->ncpu == DSP_CPU) ||
			    conflicts(&r, d->dma_ranges, d->ndma)) {
				flush(d);
				idx = 0;
				span = &d->spans[0];
				cur = NULL;
			}
			d->cpu_runs[d->ncpu_runs++] = r;
			if (cur) {
				cur->s.len += n;
			} else {
				cur = &d->cpu_pieces[d->ncpu++];
				*cur = (struct dsp_piece){
					.s = { .dst_pages = dp, .src_pages = sp, .dst_off = doff,
					       .src_off = soff, .len = n, .cookie = cur },
					.span = idx,
				};
				span->pending++;
			}
		}
		left -= n;
		doff += n;
		soff += n;
		dp += doff >> PAGE_SHIFT;
		sp += soff >> PAGE_SHIFT;
		doff &= ~PAGE_MASK;
		soff &= ~PAGE_MASK;
	}
	span->open = false;
	if (!span->pending) {
		/* every piece ran in flushes above: the plan is empty, no index moves */
		WARN_ON_ONCE(d->ndma || d->ncpu);
		report(d);
	}
}

void copier_dispatch_end(struct copier_dispatch *d)
{
	flush(d);
	WARN_ON_ONCE(d->nspans);
	spin_lock(&dsp_lock);
	list_add(&d->free_node, &dsp_free);
	spin_unlock(&dsp_lock);
}

void copier_dispatch_exit(void)
{
	struct copier_dispatch *d, *tmp;

	list_for_each_entry_safe(d, tmp, &dsp_free, free_node)
		kvfree(d);
	INIT_LIST_HEAD(&dsp_free);
}
