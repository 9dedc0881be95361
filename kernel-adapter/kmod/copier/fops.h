/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/copier file operations (client.c). */
#ifndef COPIER_FOPS_H
#define COPIER_FOPS_H

#include <linux/fs.h>
#include <linux/sysfs.h>

/* Largest COPIER_IOC_LIMITS max_bytes_per_round. */
#define COPIER_LIMIT_ROUND_MAX (64ULL << 20)

extern const struct file_operations copier_fops;

/* The misc device's attribute clients: client objects not freed yet. */
extern const struct attribute_group copier_client_group;

#endif /* COPIER_FOPS_H */
