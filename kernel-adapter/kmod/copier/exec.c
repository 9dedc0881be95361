// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU engine of copier.ko: copies spans of pinned pages through their
 * kernel mappings with 32-byte AVX loads and stores, inside one
 * kernel_fpu_begin/end section per run of spans (the argument for a service
 * thread: the vector state is saved once per batch, not once per copy).
 * Without AVX it uses memcpy (rep movsb on FSRM/ERMS machines).
 *
 * The AVX loop is inline assembly in the style of lib/raid6/avx2.c: the
 * kernel builds C with -mno-sse -mno-avx, and within kernel_fpu_begin the
 * vector registers belong to this code, so they need no clobbers.
 */
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

#include "dispatch.h"
#include "dma.h"
#include "exec.h"

/* Longest FPU section, in bytes copied: bounds the time without preemption. */
#define COPIER_FPU_SECTION_BYTES (1U << 20)

static bool copier_have_avx;

/* Copy with 32-byte vector moves; the caller holds the FPU. */
static void copy_avx(void *dst, const void *src, size_t len)
{
	while (len >= 128) {
		asm volatile("vmovdqu 0(%0), %%ymm0\n\t"
			     "vmovdqu 32(%0), %%ymm1\n\t"
			     "vmovdqu 64(%0), %%ymm2\n\t"
			     "vmovdqu 96(%0), %%ymm3\n\t"
			     "vmovdqu %%ymm0, 0(%1)\n\t"
			     "vmovdqu %%ymm1, 32(%1)\n\t"
			     "vmovdqu %%ymm2, 64(%1)\n\t"
			     "vmovdqu %%ymm3, 96(%1)\n\t"
			     : : "r"(src), "r"(dst) : "memory");
		dst += 128;
		src += 128;
		len -= 128;
	}
	while (len >= 32) {
		asm volatile("vmovdqu (%0), %%ymm0\n\t"
			     "vmovdqu %%ymm0, (%1)\n\t"
			     : : "r"(src), "r"(dst) : "memory");
		dst += 32;
		src += 32;
		len -= 32;
	}
	if (len)
		memcpy(dst, src, len);
}

static void copy_bytes(void *dst, const void *src, size_t len)
{
	if (copier_have_avx)
		copy_avx(dst, src, len);
	else
		memcpy(dst, src, len);
}

/*
 * Inside a long span: leave the FPU section and let the scheduler in once
 * COPIER_FPU_SECTION_BYTES were copied in it (a segment may be 16 MiB).
 */
static void cpu_breathe(struct copier_exec_cpu *c)
{
	if (!c->fpu || c->fpu_bytes < COPIER_FPU_SECTION_BYTES)
		return;
	kernel_fpu_end();
	cond_resched();
	kernel_fpu_begin();
	c->fpu_bytes = 0;
}

/* Copy one span page by page through the kernel mappings. */
static void copy_span(struct copier_exec_cpu *c, const struct copier_span *s)
{
	size_t doff = s->dst_off, soff = s->src_off, left = s->len;
	struct page **dp = s->dst_pages, **sp = s->src_pages;

	while (left) {
		size_t n = min3(left, PAGE_SIZE - doff, PAGE_SIZE - soff);
		void *d = kmap_local_page(*dp);
		void *src = kmap_local_page(*sp);

		copy_bytes(d + doff, src + soff, n);
		kunmap_local(src);
		kunmap_local(d);
		flush_dcache_page(*dp);
		c->fpu_bytes += n;
		cpu_breathe(c);
		left -= n;
		doff += n;
		soff += n;
		if (doff == PAGE_SIZE) {
			doff = 0;
			dp++;
		}
		if (soff == PAGE_SIZE) {
			soff = 0;
			sp++;
		}
	}
}

/* Leave the FPU section, then report the spans copied in it. */
static void cpu_flush(struct copier_exec *x)
{
	struct copier_exec_cpu *c = &x->cpu;
	unsigned int i, n = c->npending;

	if (c->fpu) {
		kernel_fpu_end();
		c->fpu = false;
		c->fpu_bytes = 0;
	}
	c->npending = 0;
	for (i = 0; i < n; i++)
		x->complete(x, c->pending[i], 0);
}

void copier_exec_cpu_begin(struct copier_exec *x)
{
	x->bytes_cpu = 0;
	x->bytes_dma = 0;
	x->cpu.npending = 0;
	x->cpu.fpu = false;
	x->cpu.fpu_bytes = 0;
	x->dma = NULL;
}

void copier_exec_cpu_add(struct copier_exec *x, const struct copier_span *s)
{
	struct copier_exec_cpu *c = &x->cpu;

	if (copier_have_avx && !c->fpu) {
		kernel_fpu_begin();
		c->fpu = true;
	}
	copy_span(c, s);
	x->bytes_cpu += s->len;
	c->pending[c->npending++] = s->cookie;
	if (c->npending == COPIER_EXEC_CPU_PENDING ||
	    c->fpu_bytes >= COPIER_FPU_SECTION_BYTES)
		cpu_flush(x);
}

void copier_exec_cpu_end(struct copier_exec *x)
{
	cpu_flush(x);
}

/* With a DMA channel, the dispatcher (dispatch.c) takes the batch. */
void copier_exec_begin(struct copier_exec *x)
{
	copier_exec_cpu_begin(x);
	x->dma = copier_dispatch_begin(x);
}

void copier_exec_add(struct copier_exec *x, const struct copier_span *s)
{
	if (x->dma)
		copier_dispatch_add(x->dma, s);
	else
		copier_exec_cpu_add(x, s);
}

void copier_exec_end(struct copier_exec *x)
{
	if (x->dma) {
		copier_dispatch_end(x->dma);
		x->dma = NULL;
	} else {
		copier_exec_cpu_end(x);
	}
}

int copier_exec_init(void)
{
	/* X86_FEATURE_AVX is cleared when the kernel does not enable YMM state. */
	copier_have_avx = boot_cpu_has(X86_FEATURE_AVX) &&
			  cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
	return copier_dma_init();
}

void copier_exec_exit(void)
{
	copier_dma_exit();
	copier_dispatch_exit();
}

const char *copier_exec_cpu_engine(void)
{
	return copier_have_avx ? "avx" : "memcpy";
}
