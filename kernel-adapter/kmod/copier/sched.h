/* SPDX-License-Identifier: GPL-2.0 */
/* Service threads and the choice of the client each round serves (sched.c). */
#ifndef COPIER_SCHED_H
#define COPIER_SCHED_H

#include <linux/types.h>

struct copier_client;

/* Bytes one round may copy for a client unless COPIER_IOC_LIMITS says. */
extern unsigned int copier_round_bytes;

int copier_sched_start(void);
void copier_sched_stop(void);

/* Add a new client; -EBUSY when a live client of the same mm exists. */
int copier_sched_add(struct copier_client *c);
/* Unlink a released client; rounds in progress keep their reference. */
void copier_sched_remove(struct copier_client *c);
/* COPIER_IOC_WAKE: the client may have new work or unblocked its tasks. */
void copier_sched_wake(struct copier_client *c);
void copier_sched_set_limit(struct copier_client *c, u64 max_round_bytes);

#endif /* COPIER_SCHED_H */
