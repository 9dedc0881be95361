/* SPDX-License-Identifier: GPL-2.0 */
/* One service round for one client (round.c). */
#ifndef COPIER_ROUND_H
#define COPIER_ROUND_H

#include <linux/types.h>

struct copier_client;

/**
 * struct copier_round_result - what a round did
 * @bytes: bytes copied (the client's charge)
 * @progress: something changed: a task executed, faulted, retired or was
 *            skipped; false means the client waits on user space
 * @head: the copy ring head the round read
 */
struct copier_round_result {
	u64 bytes;
	bool progress;
	u64 head;
};

void copier_round(struct copier_client *c, struct copier_round_result *r);

/* True when the task at pos no longer needs the service (COPIER_IOC_WAIT). */
bool copier_task_settled(struct copier_client *c, u64 pos);

#endif /* COPIER_ROUND_H */
