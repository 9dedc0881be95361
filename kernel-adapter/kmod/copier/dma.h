/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copier.ko's DMA channels (dma.c): DMA_MEMCPY dmaengine channels taken at
 * module load, as a dmaengine client. None found, or module parameter
 * dma=0: the service copies with the CPU only.
 */
#ifndef COPIER_DMA_H
#define COPIER_DMA_H

#include <linux/atomic.h>
#include <linux/types.h>

struct dma_chan;

/* Pieces shorter than this many bytes go to the CPU (module parameter). */
extern unsigned int copier_dma_min_bytes;

/* Bound on a pack's wait for its DMA completions, ms (module parameter). */
extern unsigned int copier_dma_timeout_ms;

/* DMA pieces the CPU copied after the engine failed them (module parameter). */
extern atomic_long_t copier_dma_redone;

int copier_dma_init(void);
void copier_dma_exit(void);

/* A channel for one batch (round robin over the channels), NULL when none. */
struct dma_chan *copier_dma_pick(void);

/* Channels held, for the log. */
unsigned int copier_dma_nr_chans(void);

#endif /* COPIER_DMA_H */
