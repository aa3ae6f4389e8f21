/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The register holders of cpu-state.h: cs_want into the registers, the
 * registers into cs_got, RIP-relative, vector widths by cs_avx/cs_avx512
 * (x86-64, GNU as).
 */

#define CS_SLOT		0x3f000000
#define CS_COUNT	CS_SLOT
#define CS_ASK		(CS_SLOT + 8)

/* struct cs_regs offsets */
#define GPR		0
#define VEC		(15 * 8)
#define K		(VEC + 32 * 64)
#define MXCSR		(K + 8 * 8)
#define FCW		(MXCSR + 4)
#define PKRU		(FCW + 4)

	.text

/* one move between a register and memory: into \reg or out of it */
.macro move op, dir, reg, mem
	.ifc \dir, load
	\op	\mem, \reg
	.else
	\op	\reg, \mem
	.endif
.endm

/* vectors: load (from \at into registers) or store (into \at) */
.macro vectors dir, at
	cmpb	$0, cs_avx512(%rip)
	jne	3f
	cmpb	$0, cs_avx(%rip)
	jne	2f
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	move	movdqu, \dir, %xmm\i, \at+VEC+\i*64(%rip)
	.endr
	jmp	4f
2:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	move	vmovdqu, \dir, %ymm\i, \at+VEC+\i*64(%rip)
	.endr
	jmp	4f
3:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	move	vmovdqu64, \dir, %zmm\i, \at+VEC+\i*64(%rip)
	.endr
	.irp i, 0,1,2,3,4,5,6,7
	move	kmovq, \dir, %k\i, \at+K+\i*8(%rip)
	.endr
4:
.endm

/* the general registers' slots in struct cs_regs, in cpu-state.h's order */
	.set	.Lgpr_rax, 0
	.set	.Lgpr_rbx, 1
	.set	.Lgpr_rcx, 2
	.set	.Lgpr_rdx, 3
	.set	.Lgpr_rsi, 4
	.set	.Lgpr_rdi, 5
	.set	.Lgpr_rbp, 6
	.set	.Lgpr_r8, 7
	.set	.Lgpr_r9, 8
	.set	.Lgpr_r10, 9
	.set	.Lgpr_r11, 10
	.set	.Lgpr_r12, 11
	.set	.Lgpr_r13, 12
	.set	.Lgpr_r14, 13
	.set	.Lgpr_r15, 14

/* general registers: load (from \at) or store (into \at) these */
.macro gprs dir, at, regs:vararg
	.irp r, \regs
	move	movq, \dir, %\r, \at+GPR+.Lgpr_\r*8(%rip)
	.endr
.endm

/* PKRU, where the OS enabled it; clobbers eax, ecx, edx */
.macro pkru dir
	cmpb	$0, cs_pkru(%rip)
	je	5f
	xorl	%ecx, %ecx
	.ifc \dir, load
	movl	cs_want+PKRU(%rip), %eax
	xorl	%edx, %edx
	wrpkru
	.else
	rdpkru
	movl	%eax, cs_got+PKRU(%rip)
	.endif
5:
.endm

.macro push_callee
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
.endm

.macro pop_callee
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
.endm

/*
 * void cs_hold(void): a worker's registers hold cs_want until the agent
 * asks (a nonzero quadword at CS_ASK); meanwhile the quadword at CS_COUNT
 * counts, so the agent sees the worker run.  No system call, no register
 * but the flags changes before the reading.
 */
	.globl	cs_hold
	.type	cs_hold, @function
cs_hold:
	push_callee
	pkru	load
	vectors	load, cs_want
	ldmxcsr	cs_want+MXCSR(%rip)
	fldcw	cs_want+FCW(%rip)
	gprs	load, cs_want, rax, rbx, rcx, rdx, rsi, rdi, rbp
	gprs	load, cs_want, r8, r9, r10, r11, r12, r13, r14, r15
1:
	incq	CS_COUNT
	cmpq	$0, CS_ASK
	je	1b
	gprs	store, cs_got, rax, rbx, rcx, rdx, rsi, rdi, rbp
	gprs	store, cs_got, r8, r9, r10, r11, r12, r13, r14, r15
	vectors	store, cs_got
	stmxcsr	cs_got+MXCSR(%rip)
	fnstcw	cs_got+FCW(%rip)
	pkru	store
	pop_callee
	ret
	.size	cs_hold, .-cs_hold

/*
 * long cs_hold_write(int fd, const void *buf, unsigned long len): write(2)
 * with cs_want held in every register the system call leaves alone; its
 * return value in rax.
 */
	.globl	cs_hold_write
	.type	cs_hold_write, @function
cs_hold_write:
	push_callee
	movq	%rdi, %r11		/* fd, buf, len past the loads */
	movq	%rsi, %rcx
	pushq	%rdx
	pushq	%rcx
	pushq	%r11
	pkru	load
	vectors	load, cs_want
	ldmxcsr	cs_want+MXCSR(%rip)
	fldcw	cs_want+FCW(%rip)
	popq	%rdi
	popq	%rsi
	popq	%rdx
	gprs	load, cs_want, rbx, rbp, r8, r9, r10, r12, r13, r14, r15
	movl	$1, %eax		/* __NR_write */
	syscall
	gprs	store, cs_got, rbx, rbp, r8, r9, r10, r12, r13, r14, r15
	vectors	store, cs_got
	stmxcsr	cs_got+MXCSR(%rip)
	fnstcw	cs_got+FCW(%rip)
	pushq	%rax
	pkru	store
	popq	%rax
	pop_callee
	ret
	.size	cs_hold_write, .-cs_hold_write

	.section .note.GNU-stack, "", @progbits
