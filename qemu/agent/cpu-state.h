/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU state a user program owns, held across a hibernation.
 *
 * A holder puts known values into the registers a program owns and the
 * kernel must give back after the resume: the general registers, the
 * vector registers the CPU model has (xmm0-15; ymm0-15 with AVX; zmm0-31
 * and k0-7 with AVX-512, each only where CPUID and XCR0 say the OS
 * enabled it), MXCSR, the x87 control word, PKRU where PKU is on (OSPKE),
 * and the FS and GS bases.  It then reads them back and names every one
 * that changed.
 *
 * Two holders (hiblab-agent.c):
 *  - a worker, pinned to its CPU, spins with the values in its registers
 *    and no system call until the agent asks (cs_hold(): the spin reads
 *    the request and counts at a fixed address, CS_SLOT, so no register
 *    is needed for either);
 *  - the hibernating task keeps them across its write of "disk" to
 *    /sys/power/state, the system call that hibernates and, after the
 *    resume, returns (cs_hold_write(): all but the registers the system
 *    call itself takes or clobbers: rax, rcx, rdx, rsi, rdi, r11).
 *
 * The register file is at fixed symbols (cs_want, cs_got), read and
 * written RIP-relative: each holder is its own process, with its own copy.
 */

#ifndef HIBLAB_CPU_STATE_H
#define HIBLAB_CPU_STATE_H

#include <stdbool.h>

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004

/* Where a worker's slot page is (mremap()ed there in the worker). */
#define CS_SLOT		0x3f000000UL
#define CS_COUNT	CS_SLOT		/* incremented by the spin */
#define CS_ASK		(CS_SLOT + 8)	/* nonzero: read back now */

struct cs_regs {
	unsigned long long gpr[15];	/* rax rbx rcx rdx rsi rdi rbp r8-r15 */
	unsigned char vec[32][64];	/* zmm0-31; xmm/ymm their low bytes */
	unsigned long long k[8];	/* opmask k0-7 */
	unsigned int mxcsr;
	unsigned short fcw;
	unsigned short pad;
	unsigned int pkru;
	unsigned int pad2;
	unsigned long long fs_base, gs_base;
};

/* Which registers this CPU model and kernel give a program. */
struct cs_features {
	bool avx, avx512, pkru;
};

/* The values and the reading: globals at fixed symbols for the asm. */
struct cs_regs cs_want __attribute__((used, aligned(64)));
struct cs_regs cs_got __attribute__((used, aligned(64)));
unsigned char cs_avx __attribute__((used));
unsigned char cs_avx512 __attribute__((used));
unsigned char cs_pkru __attribute__((used));

static const char * const cs_gpr_name[15] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15",
};

/* cs_values()' holder number of the hibernating task (workers: CPUs). */
#define CS_TASK		255

/* The general registers cs_hold_write() keeps: the system call takes
 * rax, rdx, rsi and rdi and clobbers rcx and r11. */
#define CS_TASK_GPRS	((1 << 1) | (1 << 6) | (1 << 7) | (1 << 8) | \
			 (1 << 9) | (1 << 11) | (1 << 12) | (1 << 13) | \
			 (1 << 14))
#define CS_ALL_GPRS	0x7fff

/* The x87 control word bits that mean something: the exception masks
 * (0-5), precision (8-9) and rounding (10-11). */
#define CS_FCW_MASK	0x0f3f

static void cs_cpuid(unsigned int leaf, unsigned int sub, unsigned int *r)
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]),
			 "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static struct cs_features cs_features(void)
{
	struct cs_features f = { false, false, false };
	unsigned int r[4], lo = 0, hi = 0, max;

	cs_cpuid(0, 0, r);
	max = r[0];
	cs_cpuid(1, 0, r);
	if (r[2] & (1U << 27))		/* OSXSAVE: XGETBV works */
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	f.avx = (r[2] & (1U << 28)) && (lo & 0x6) == 0x6;
	if (max >= 7) {
		cs_cpuid(7, 0, r);
		/* F for zmm, BW for the 64-bit kmovq of k0-7. */
		f.avx512 = f.avx && (r[1] & (1U << 16)) &&
			   (r[1] & (1U << 30)) && (lo & 0xe6) == 0xe6;
		f.pkru = r[2] & (1U << 4);	/* OSPKE */
	}
	return f;
}

static unsigned long long cs_mix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The values holder `who` (a CPU number; 255 for the hibernating task)
 * keeps under a key: distinct per holder and per register. */
static void cs_values(struct cs_regs *w, unsigned long long key, int who)
{
	unsigned long long *v;
	int i, j;

	for (i = 0; i < 15; i++)
		w->gpr[i] = cs_mix(key ^ ((unsigned long long)who << 32) ^ i);
	for (i = 0; i < 32; i++) {
		v = (unsigned long long *)w->vec[i];
		for (j = 0; j < 8; j++)
			v[j] = cs_mix(key ^ ((unsigned long long)who << 32) ^
				      (0x100 + i * 8 + j));
	}
	for (i = 0; i < 8; i++)
		w->k[i] = cs_mix(key ^ ((unsigned long long)who << 32) ^
				 (0x200 + i));
	/* Exceptions masked (no FP instruction may trap), rounding and
	 * flush-to-zero chosen by the holder: never the kernel's default. */
	w->mxcsr = 0x1f80 | ((who % 3 + 1) << 13) | ((who & 1) << 15);
	w->fcw = 0x007f | ((who % 2 ? 2 : 0) << 8) | ((who % 3 + 1) << 10);
	/* Key 0 must stay accessible: its two bits are 0. */
	w->pkru = (unsigned int)cs_mix(key ^ who ^ 0x300) & ~3U;
	/* Canonical user addresses, never dereferenced (nolibc has no TLS). */
	w->fs_base = 0x100000000000ULL + ((unsigned long long)who << 20);
	w->gs_base = 0x200000000000ULL + ((unsigned long long)who << 20);
}

static int cs_arch_prctl(int code, unsigned long addr)
{
	return my_syscall2(__NR_arch_prctl, code, addr);
}

/* cpu-state.S: hold cs_want in the registers, read them into cs_got. */
void cs_hold(void);
long cs_hold_write(int fd, const void *buf, unsigned long len);

#endif
