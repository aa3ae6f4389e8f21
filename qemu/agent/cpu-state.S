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

/* vectors: load (from \\src into registers) or store (into \\dst) */
.macro vectors dir, at
	cmpb	$0, cs_avx512(%rip)
	jne	3f
	cmpb	$0, cs_avx(%rip)
	jne	2f
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.ifc \dir, load
	movdqu	\at+VEC+\i*64(%rip), %xmm\i
	.else
	movdqu	%xmm\i, \at+VEC+\i*64(%rip)
	.endif
	.endr
	jmp	4f
2:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.ifc \dir, load
	vmovdqu	\at+VEC+\i*64(%rip), %ymm\i
	.else
	vmovdqu	%ymm\i, \at+VEC+\i*64(%rip)
	.endif
	.endr
	jmp	4f
3:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.ifc \dir, load
	vmovdqu64 \at+VEC+\i*64(%rip), %zmm\i
	.else
	vmovdqu64 %zmm\i, \at+VEC+\i*64(%rip)
	.endif
	.endr
	.irp i, 0,1,2,3,4,5,6,7
	.ifc \dir, load
	kmovq	\at+K+\i*8(%rip), %k\i
	.else
	kmovq	%k\i, \at+K+\i*8(%rip)
	.endif
	.endr
4:
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
	movq	cs_want+GPR+0*8(%rip), %rax
	movq	cs_want+GPR+1*8(%rip), %rbx
	movq	cs_want+GPR+2*8(%rip), %rcx
	movq	cs_want+GPR+3*8(%rip), %rdx
	movq	cs_want+GPR+4*8(%rip), %rsi
	movq	cs_want+GPR+5*8(%rip), %rdi
	movq	cs_want+GPR+6*8(%rip), %rbp
	movq	cs_want+GPR+7*8(%rip), %r8
	movq	cs_want+GPR+8*8(%rip), %r9
	movq	cs_want+GPR+9*8(%rip), %r10
	movq	cs_want+GPR+10*8(%rip), %r11
	movq	cs_want+GPR+11*8(%rip), %r12
	movq	cs_want+GPR+12*8(%rip), %r13
	movq	cs_want+GPR+13*8(%rip), %r14
	movq	cs_want+GPR+14*8(%rip), %r15
1:
	incq	CS_COUNT
	cmpq	$0, CS_ASK
	je	1b
	movq	%rax, cs_got+GPR+0*8(%rip)
	movq	%rbx, cs_got+GPR+1*8(%rip)
	movq	%rcx, cs_got+GPR+2*8(%rip)
	movq	%rdx, cs_got+GPR+3*8(%rip)
	movq	%rsi, cs_got+GPR+4*8(%rip)
	movq	%rdi, cs_got+GPR+5*8(%rip)
	movq	%rbp, cs_got+GPR+6*8(%rip)
	movq	%r8, cs_got+GPR+7*8(%rip)
	movq	%r9, cs_got+GPR+8*8(%rip)
	movq	%r10, cs_got+GPR+9*8(%rip)
	movq	%r11, cs_got+GPR+10*8(%rip)
	movq	%r12, cs_got+GPR+11*8(%rip)
	movq	%r13, cs_got+GPR+12*8(%rip)
	movq	%r14, cs_got+GPR+13*8(%rip)
	movq	%r15, cs_got+GPR+14*8(%rip)
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
	movq	cs_want+GPR+1*8(%rip), %rbx
	movq	cs_want+GPR+6*8(%rip), %rbp
	movq	cs_want+GPR+7*8(%rip), %r8
	movq	cs_want+GPR+8*8(%rip), %r9
	movq	cs_want+GPR+9*8(%rip), %r10
	movq	cs_want+GPR+11*8(%rip), %r12
	movq	cs_want+GPR+12*8(%rip), %r13
	movq	cs_want+GPR+13*8(%rip), %r14
	movq	cs_want+GPR+14*8(%rip), %r15
	movl	$1, %eax		/* __NR_write */
	syscall
	movq	%rbx, cs_got+GPR+1*8(%rip)
	movq	%rbp, cs_got+GPR+6*8(%rip)
	movq	%r8, cs_got+GPR+7*8(%rip)
	movq	%r9, cs_got+GPR+8*8(%rip)
	movq	%r10, cs_got+GPR+9*8(%rip)
	movq	%r12, cs_got+GPR+11*8(%rip)
	movq	%r13, cs_got+GPR+12*8(%rip)
	movq	%r14, cs_got+GPR+13*8(%rip)
	movq	%r15, cs_got+GPR+14*8(%rip)
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
