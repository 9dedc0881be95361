/* SPDX-License-Identifier: GPL-2.0 */
/* The shared area of a client: layout, allocation and mmap (area.c). */
#ifndef COPIER_AREA_H
#define COPIER_AREA_H

#include <linux/mm_types.h>
#include <linux/copier.h>

struct copier_client;

/* Largest area one client may map (all rings at 65536 entries fit). */
#define COPIER_AREA_MAX (64UL << 20)

int copier_area_setup(struct copier_client *c, struct copier_setup *s);
void copier_area_free(struct copier_client *c);
int copier_area_mmap(struct copier_client *c, struct vm_area_struct *vma);

#endif /* COPIER_AREA_H */
