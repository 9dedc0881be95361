// SPDX-License-Identifier: GPL-2.0
/*
 * copier.ko as a dmaengine client: at load it requests up to dma_chans
 * DMA_MEMCPY channels (dma_request_chan_by_mask: I/OAT, DSA through idxd's
 * dmaengine channels, or copier_swdma.ko in tests) and keeps them until
 * unload. Holding a channel holds its provider's module.
 *
 * Channels are shared by the service threads; a batch picks one round
 * robin and submits all its DMA pieces there (dispatch.c). dmaengine
 * providers accept concurrent submitters on one channel.
 */
#include <linux/atomic.h>
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "dma.h"

#define COPIER_DMA_MAX_CHANS 8

static bool dma = true;
module_param(dma, bool, 0444);
MODULE_PARM_DESC(dma, "use DMA_MEMCPY dmaengine channels when present (default 1; 0: CPU only)");

static unsigned int dma_chans = 1;
module_param(dma_chans, uint, 0444);
MODULE_PARM_DESC(dma_chans, "DMA_MEMCPY channels to take (1..8, default 1)");

unsigned int copier_dma_min_bytes = 16384;
module_param_named(dma_min_bytes, copier_dma_min_bytes, uint, 0644);
MODULE_PARM_DESC(dma_min_bytes, "shortest physically contiguous piece sent to DMA, bytes (default 16384)");

unsigned int copier_dma_timeout_ms = 10000;
module_param_named(dma_timeout_ms, copier_dma_timeout_ms, uint, 0644);
MODULE_PARM_DESC(dma_timeout_ms, "a pack's DMA pieces not completed after this long are terminated and copied by the CPU (default 10000)");

atomic_long_t copier_dma_redone = ATOMIC_LONG_INIT(0);

static int redone_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&copier_dma_redone));
}

static const struct kernel_param_ops redone_ops = {
	.get = redone_get,
};
module_param_cb(dma_redone, &redone_ops, NULL, 0444);
MODULE_PARM_DESC(dma_redone, "read only: DMA pieces that failed and the CPU copied instead");

static struct dma_chan *chans[COPIER_DMA_MAX_CHANS];
static unsigned int nchans;
static atomic_t next_chan = ATOMIC_INIT(0);

int copier_dma_init(void)
{
	unsigned int want = clamp(dma_chans, 1U, (unsigned int)COPIER_DMA_MAX_CHANS);
	dma_cap_mask_t mask;

	if (!dma) {
		pr_info("copier: DMA disabled (dma=0), CPU engine only\n");
		return 0;
	}
	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	while (nchans < want) {
		struct dma_chan *c = dma_request_chan_by_mask(&mask);

		if (IS_ERR(c))
			break;
		chans[nchans++] = c;
	}
	if (nchans)
		pr_info("copier: %u DMA_MEMCPY channel(s), first %s, pieces >= %u bytes\n",
			nchans, dma_chan_name(chans[0]), copier_dma_min_bytes);
	else
		pr_info("copier: no DMA_MEMCPY channel, CPU engine only\n");
	return 0;
}

void copier_dma_exit(void)
{
	while (nchans) {
		struct dma_chan *c = chans[--nchans];

		dmaengine_terminate_sync(c);
		dma_release_channel(c);
		chans[nchans] = NULL;
	}
}

struct dma_chan *copier_dma_pick(void)
{
	if (!nchans)
		return NULL;
	return chans[(unsigned int)atomic_inc_return(&next_chan) % nchans];
}

unsigned int copier_dma_nr_chans(void)
{
	return nchans;
}
