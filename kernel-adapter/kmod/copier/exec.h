/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The execution interface of copier.ko: how a service round hands copy
 * pieces to an engine and gets their completions back.
 *
 * A round (round.c) pins the pages of a batch of segment runs, then drives
 * one batch through the engines:
 *
 *	copier_exec_begin(x);
 *	for each piece: copier_exec_add(x, &span);
 *	copier_exec_end(x);	// every added span completed exactly once
 *
 * An engine may copy inside copier_exec_add() (the CPU engine, exec.c) or
 * queue the span and copy later (a DMA engine: submit in add, reap in end).
 * Completions are reported from copier_exec_add() (when an engine flushes
 * what it finished) or copier_exec_end(), always after the engines left any
 * atomic section (kernel_fpu_end), in process context: the complete()
 * callback may sleep (it unpins pages and marks them dirty).
 *
 * A dispatcher that splits spans between engines (DMA for large physically
 * contiguous pieces, CPU for the rest) lives behind these three calls; the
 * round does not know which engine ran a span, only the byte counters in
 * struct copier_exec say so.
 */
#ifndef COPIER_EXEC_H
#define COPIER_EXEC_H

#include <linux/types.h>

struct device;
struct page;
struct copier_exec;

/**
 * struct copier_span - one contiguous piece to copy, in pinned pages
 * @dst_pages: pinned destination pages; byte 0 of the piece is at
 *             @dst_off in dst_pages[0], and the pages cover @len bytes
 * @src_pages: pinned source pages, likewise from @src_off
 * @dst_off: offset in dst_pages[0], < PAGE_SIZE
 * @src_off: offset in src_pages[0], < PAGE_SIZE
 * @len: bytes, > 0
 * @cookie: the round's handle, passed back to complete()
 *
 * The page arrays and the pins stay valid until complete() is called for
 * this span. Source and destination do not overlap (the round executes
 * overlapping COPIER_F_MOVE tasks elsewhere).
 */
struct copier_span {
	struct page **dst_pages;
	struct page **src_pages;
	unsigned int dst_off;
	unsigned int src_off;
	size_t len;
	void *cookie;
};

/* Spans the CPU engine copies before it reports them (and leaves the FPU). */
#define COPIER_EXEC_CPU_PENDING 64

/**
 * struct copier_exec_cpu - the CPU engine's state in one batch
 * @pending: cookies of spans copied but not reported yet
 * @npending: entries of @pending in use
 * @fpu: inside kernel_fpu_begin()
 * @fpu_bytes: bytes copied since kernel_fpu_begin(); bounds the time with
 *             preemption off
 */
struct copier_exec_cpu {
	void *pending[COPIER_EXEC_CPU_PENDING];
	unsigned int npending;
	bool fpu;
	size_t fpu_bytes;
};

/**
 * struct copier_exec - one batch of spans (one service round)
 * @complete: called once per added span from copier_exec_end(), in
 *            process context, with @err 0 when the bytes were copied or a
 *            negative errno when the engine failed (the round then marks
 *            the segments faulted: user space re-executes them)
 * @ctx: the client served (struct copier_client *), for complete() and for
 *       engines that keep per-client state (pinned-page caches)
 * @dma_addr: optional (NULL: none): a DMA engine's question for the @len
 *            bytes at byte @off of the destination (@dst) or source of
 *            the span whose cookie is @cookie: does a cache hold them
 *            mapped for @dev? true with *@addr set, and the mapping stays
 *            valid until that span's completion; false: the engine maps
 *            them itself
 * @bytes_cpu: out: bytes the CPU engine copied in this batch
 * @bytes_dma: out: bytes a DMA engine copied in this batch
 * @cpu: the CPU engine's state
 * @dma: a DMA engine's state (NULL while no DMA engine exists)
 */
struct copier_exec {
	void (*complete)(struct copier_exec *x, void *cookie, int err);
	void *ctx;
	bool (*dma_addr)(struct copier_exec *x, void *cookie, bool dst, size_t off, size_t len,
			 struct device *dev, dma_addr_t *addr);
	u64 bytes_cpu;
	u64 bytes_dma;
	struct copier_exec_cpu cpu;
	void *dma;
};

/**
 * copier_exec_begin() - start a batch
 * @x: the batch; @complete and @ctx set by the caller
 *
 * Context: process context, may sleep. The caller does nothing that
 * sleeps between copier_exec_begin() and copier_exec_end() except through
 * these calls: the CPU engine keeps the FPU state (preemption off) from one
 * copier_exec_add() to the next.
 */
void copier_exec_begin(struct copier_exec *x);

/**
 * copier_exec_add() - add one span to the batch
 * @x: the batch
 * @s: the span, read during the call; its page arrays must stay valid
 *     until its completion
 *
 * May report completions (of this span or earlier ones) before returning.
 */
void copier_exec_add(struct copier_exec *x, const struct copier_span *s);

/**
 * copier_exec_end() - finish the batch and report every completion
 * @x: the batch
 *
 * Context: process context; calls @x->complete once per span added since
 * copier_exec_begin(), outside any atomic section.
 */
void copier_exec_end(struct copier_exec *x);

/*
 * The CPU engine alone, same contract as copier_exec_begin/add/end: the
 * dispatcher (dispatch.c) runs its CPU pieces through it.
 */
void copier_exec_cpu_begin(struct copier_exec *x);
void copier_exec_cpu_add(struct copier_exec *x, const struct copier_span *s);
void copier_exec_cpu_end(struct copier_exec *x);

/* Module load/unload of the engines (exec.c): detect AVX, set up channels. */
int copier_exec_init(void);
void copier_exec_exit(void);

/* Which CPU copy routine runs ("avx2", "avx", "memcpy"), for the log. */
const char *copier_exec_cpu_engine(void);

#endif /* COPIER_EXEC_H */
