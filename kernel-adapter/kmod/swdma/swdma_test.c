// SPDX-License-Identifier: GPL-2.0
/*
 * copier_swdma_test.ko: a dmaengine client test of any DMA_MEMCPY channel
 * (Debian's kernel ships no dmatest). Loading it runs the cases and fails
 * with -EIO when one fails, so `insmod` is the verdict; it prints one
 * "swdma_test: PASS" or "swdma_test: FAIL" line.
 *
 * Cases, on one channel:
 * - copies at every offset/length pair of a small table (both ends padded,
 *   so unaligned heads and tails run), many descriptors per issue_pending,
 *   bytes checked against the source and guard bytes around each copy;
 * - cookies: the last cookie reads DMA_COMPLETE from dmaengine_tx_status,
 *   and every callback_result reported DMA_TRANS_NOERROR;
 * - terminate: descriptors submitted but not issued, then
 *   dmaengine_terminate_sync: no callback runs, and the channel copies
 *   again afterwards.
 * The waits have a 10 s bound only so that a broken provider fails the test
 * instead of hanging the VM.
 */
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/string.h>

#define BUF_ORDER 4
#define BUF_BYTES (PAGE_SIZE << BUF_ORDER)
#define GUARD 0xA5
#define HANG_BOUND (10 * HZ)

struct batch {
	atomic_t left;
	atomic_t errors;
	atomic_t calls;
	struct completion done;
};

static void batch_cb(void *arg, const struct dmaengine_result *res)
{
	struct batch *b = arg;

	atomic_inc(&b->calls);
	if (res->result != DMA_TRANS_NOERROR)
		atomic_inc(&b->errors);
	if (atomic_dec_and_test(&b->left))
		complete(&b->done);
}

static const size_t offs[] = { 0, 1, 7, 63, 64, 4095, 4096, 4097 };
static const size_t lens[] = { 1, 3, 64, 100, 4096, 4097, 8191, 20000 };

/* Submit one descriptor; returns its cookie or a negative errno. */
static dma_cookie_t submit(struct dma_chan *chan, dma_addr_t d, dma_addr_t s, size_t len,
			   struct batch *b)
{
	struct dma_async_tx_descriptor *tx;

	tx = dmaengine_prep_dma_memcpy(chan, d, s, len, DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		return -ENOMEM;
	tx->callback_result = batch_cb;
	tx->callback_param = b;
	return dmaengine_submit(tx);
}

static void batch_init(struct batch *b, int n)
{
	atomic_set(&b->left, n);
	atomic_set(&b->errors, 0);
	atomic_set(&b->calls, 0);
	init_completion(&b->done);
}

/* One descriptor per issue, every offset/length pair of the tables. */
static int run_copies(struct dma_chan *chan, u8 *src, u8 *dst, dma_addr_t s, dma_addr_t d,
		      struct device *dev)
{
	unsigned int i, j, n = 0;
	dma_cookie_t last;
	struct batch b;

	for (i = 0; i < ARRAY_SIZE(offs); i++)
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			size_t so = offs[i], len = lens[j];
			size_t dof = (offs[(i + j) % ARRAY_SIZE(offs)] + 3 * j) % 4096;

			memset(dst, GUARD, BUF_BYTES);
			dma_sync_single_for_device(dev, d, BUF_BYTES, DMA_BIDIRECTIONAL);
			batch_init(&b, 1);
			last = submit(chan, d + dof, s + so, len, &b);
			if (last < 0)
				return last;
			dma_async_issue_pending(chan);
			if (!wait_for_completion_timeout(&b.done, HANG_BOUND))
				return -ETIMEDOUT;
			dma_sync_single_for_cpu(dev, d, BUF_BYTES, DMA_BIDIRECTIONAL);
			if (memcmp(dst + dof, src + so, len) || (dof && dst[dof - 1] != GUARD) ||
			    dst[dof + len] != GUARD || atomic_read(&b.errors) ||
			    dmaengine_tx_status(chan, last, NULL) != DMA_COMPLETE) {
				pr_err("swdma_test: copy %zu->%zu len %zu wrong\n", so, dof, len);
				return -EIO;
			}
			n++;
		}
	return n;
}

/* Many descriptors in one issue: disjoint slots of the destination. */
static int run_batch(struct dma_chan *chan, u8 *src, u8 *dst, dma_addr_t s, dma_addr_t d,
		     struct device *dev)
{
	const unsigned int n = 64;
	const size_t slot = BUF_BYTES / n;
	struct batch b;
	dma_cookie_t last = 0;
	unsigned int i;

	memset(dst, GUARD, BUF_BYTES);
	dma_sync_single_for_device(dev, d, BUF_BYTES, DMA_BIDIRECTIONAL);
	batch_init(&b, n);
	for (i = 0; i < n; i++) {
		size_t len = slot - 1 - (i % 7);

		last = submit(chan, d + i * slot + (i % 3), s + (n - 1 - i) * slot, len - 2, &b);
		if (last < 0)
			return last;
	}
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&b.done, HANG_BOUND))
		return -ETIMEDOUT;
	dma_sync_single_for_cpu(dev, d, BUF_BYTES, DMA_BIDIRECTIONAL);
	for (i = 0; i < n; i++) {
		size_t len = slot - 1 - (i % 7) - 2;
		u8 *p = dst + i * slot + (i % 3);

		if (memcmp(p, src + (n - 1 - i) * slot, len) || ((i % 3) && p[-1] != GUARD) ||
		    p[len] != GUARD) {
			pr_err("swdma_test: batch copy %u wrong\n", i);
			return -EIO;
		}
	}
	if (atomic_read(&b.errors) || atomic_read(&b.calls) != n ||
	    dmaengine_tx_status(chan, last, NULL) != DMA_COMPLETE)
		return -EIO;
	return n;
}

/* Submitted, never issued, terminated: no callback, channel still works. */
static int run_terminate(struct dma_chan *chan, dma_addr_t s, dma_addr_t d)
{
	struct batch b;
	unsigned int i;
	int ret;

	batch_init(&b, 1000);
	for (i = 0; i < 8; i++) {
		ret = submit(chan, d, s, 4096, &b);
		if (ret < 0)
			return ret;
	}
	ret = dmaengine_terminate_sync(chan);
	if (ret)
		return ret;
	if (atomic_read(&b.calls))
		return -EIO;
	return 8;
}

static int __init swdma_test_init(void)
{
	struct page *sp, *dp;
	struct dma_chan *chan;
	dma_cap_mask_t mask;
	struct device *dev;
	dma_addr_t s, d;
	u8 *src, *dst;
	int n1, n2, n3, n4;
	int ret = -ENOMEM;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	chan = dma_request_chan_by_mask(&mask);
	if (IS_ERR(chan)) {
		pr_err("swdma_test: FAIL: no DMA_MEMCPY channel (%ld)\n", PTR_ERR(chan));
		return PTR_ERR(chan);
	}
	dev = chan->device->dev;
	sp = alloc_pages(GFP_KERNEL, BUF_ORDER);
	dp = alloc_pages(GFP_KERNEL, BUF_ORDER);
	if (!sp || !dp)
		goto out_pages;
	src = page_address(sp);
	dst = page_address(dp);
	get_random_bytes(src, BUF_BYTES);
	s = dma_map_page(dev, sp, 0, BUF_BYTES, DMA_TO_DEVICE);
	d = dma_map_page(dev, dp, 0, BUF_BYTES, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, s) || dma_mapping_error(dev, d)) {
		ret = -EIO;
		goto out_map;
	}
	n1 = run_copies(chan, src, dst, s, d, dev);
	n2 = run_batch(chan, src, dst, s, d, dev);
	n3 = run_terminate(chan, s, d);
	n4 = run_batch(chan, src, dst, s, d, dev);	/* after terminate */
	if (n1 < 0 || n2 < 0 || n3 < 0 || n4 < 0) {
		pr_err("swdma_test: FAIL: copies %d batch %d terminate %d again %d (%s)\n", n1,
		       n2, n3, n4, dma_chan_name(chan));
		ret = -EIO;
	} else {
		pr_info("swdma_test: PASS: %d single, %d batched, %d terminated, %d after (%s)\n",
			n1, n2, n3, n4, dma_chan_name(chan));
		ret = 0;
	}
out_map:
	if (!dma_mapping_error(dev, d))
		dma_unmap_page(dev, d, BUF_BYTES, DMA_BIDIRECTIONAL);
	if (!dma_mapping_error(dev, s))
		dma_unmap_page(dev, s, BUF_BYTES, DMA_TO_DEVICE);
out_pages:
	if (dp)
		__free_pages(dp, BUF_ORDER);
	if (sp)
		__free_pages(sp, BUF_ORDER);
	dma_release_channel(chan);
	return ret;
}

static void __exit swdma_test_exit(void)
{
}

module_init(swdma_test_init);
module_exit(swdma_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Copier: test of a DMA_MEMCPY dmaengine channel (copier_swdma)");
