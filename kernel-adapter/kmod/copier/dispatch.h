/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dispatcher (dispatch.c): one exec.h batch split between a DMA
 * channel and the CPU engine, packed per batch.
 */
#ifndef COPIER_DISPATCH_H
#define COPIER_DISPATCH_H

struct copier_dispatch;
struct copier_exec;
struct copier_span;

/*
 * Start the dispatcher for batch x; NULL when there is no DMA channel (or
 * no memory), and the CPU engine runs the batch alone. Process context.
 */
struct copier_dispatch *copier_dispatch_begin(struct copier_exec *x);

/* Plan one span; may execute and report earlier spans (and this one). */
void copier_dispatch_add(struct copier_dispatch *d, const struct copier_span *s);

/* Execute the rest, report every span, and give d back. May sleep. */
void copier_dispatch_end(struct copier_dispatch *d);

/* Free the dispatchers kept for reuse (module unload). */
void copier_dispatch_exit(void);

#endif /* COPIER_DISPATCH_H */
