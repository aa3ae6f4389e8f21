# SPDX-License-Identifier: GPL-2.0
"""Where the vCPUs were while the image was copied, and which paging level
the kernels ran: judged from the reading of every vCPU at the restore
kernel's swsusp_arch_resume (lab.gdb: gdb's thread list and QEMU's
`info registers -a`) and from the kernels' layouts.  Pure functions."""

from typing import Dict, List, Optional, Tuple

from hiblab.lab.records import VCpuRecord
from hiblab.verdict import Verdict, check

# Where a non-boot CPU may be while the image is copied: halted right after
# a HLT in hlt_play_dead() (resume_play_dead) or in the HLT loop that
# smp_kick_mwait_play_dead() moves mwait_play_dead() to (inlined into
# native_play_dead()).  Both functions also hold code that is not a safe
# place (the MWAIT loop), so the instruction before the PC must be HLT.
PARKING_FUNCTIONS = ('hlt_play_dead', 'mwait_play_dead', 'native_play_dead')


# The paging level, from the guest: CR4.LA57 of the vCPU at the restore
# kernel's swsusp_arch_resume, and each kernel's page_offset_base.  Under
# 4-level paging every kernel address is canonical at 48 bits, i.e. at or
# above L4_KERNEL_START; 5-level's kernel half starts at L5_KERNEL_START
# (the direct map at 0xff11000000000000 before KASLR), so an address
# between the two exists only with 5-level paging.
CR4_LA57 = 1 << 12


L5_KERNEL_START = 0xff00000000000000


L4_KERNEL_START = 0xffff800000000000


def vcpu_state(c: VCpuRecord) -> str:
	"""'halted' or 'running' where gdb and HMP agree, else both views."""
	if c.hlt is None:
		return f'{c.state} (gdb) but not in `info registers -a` at that RIP'
	if c.hlt == (c.state == 'halted'):
		return c.state
	return f'{c.state} (gdb) but HLT={int(c.hlt)} (info registers)'


def parking_place(c: VCpuRecord) -> Tuple[bool, str]:
	"""(safe, where) for a non-boot vCPU at the breakpoint.

	Safe: halted after a HLT in a parking function, or halted outside
	the kernel's text (an AP that was never started: wait-for-SIPI).
	Halted means both of QEMU's views say so: gdb's thread state and
	HLT=1 in `info registers -a`.
	"""
	state = vcpu_state(c)
	if not c.in_text:
		where = f'CPU{c.cpu} {state} at {c.pc:#x} (outside the kernel)'
		return state == 'halted', where + (': never started by it' if
						   state == 'halted' else '')
	where = f'CPU{c.cpu} {state} in {c.symbol}'
	if state != 'halted':
		return False, where
	if c.function not in PARKING_FUNCTIONS:
		return False, where + ' (not a parking function)'
	if not c.hlt_before:
		return False, where + ' (not after a HLT)'
	return True, where


def parking(name: str, cpus: Optional[List[VCpuRecord]], vcpus: int
	    ) -> Verdict:
	"""Every non-boot vCPU parked safely, and gdb saw all of them."""
	if not cpus:
		return check(name, False, 'the breakpoint at swsusp_arch_resume '
			     'was not reached')
	where, bad = [], []
	for c in cpus:
		if c.cpu == 0:
			where.append(f'CPU0 {vcpu_state(c)} in {c.symbol}')
			continue
		safe, place = parking_place(c)
		where.append(place)
		if not safe:
			bad.append(place)
	count = '' if len(cpus) == vcpus else \
		f'; gdb saw {len(cpus)} of {vcpus} vCPUs'
	return check(name, not bad and not count, '; '.join(bad) + count
		     if bad or count else ', '.join(where))


def address_level(addr: int) -> int:
	"""The paging level a kernel address needs: 4 or 5 (0: not a kernel
	address at all)."""
	if addr >= L4_KERNEL_START:
		return 4
	return 5 if addr >= L5_KERNEL_START else 0


def paging(name: str, want: int, cpus: Optional[List[VCpuRecord]],
	   image: Dict[str, int], restore: Dict[str, int],
	   want_restore: int = 0) -> Verdict:
	"""Both kernels ran the paging level the scenario claims (want; the
	restore kernel want_restore if set): the restore kernel's CR4.LA57 at
	the breakpoint (when one was armed) and both kernels'
	page_offset_base."""
	want_restore = want_restore or want
	got, ok = [], True
	if cpus is not None:
		at = next((c for c in cpus if c.symbol.startswith(
			'swsusp_arch_resume')), None) or \
			next((c for c in cpus if c.cpu == 0), None)
		if at is None or at.cr4 is None:
			ok = False
			got.append('no CR4 of the vCPU at swsusp_arch_resume')
		else:
			la57 = bool(at.cr4 & CR4_LA57)
			ok = ok and (5 if la57 else 4) == want_restore
			got.append(f'CR4={at.cr4:#x} ({"LA57" if la57 else "no LA57"})'
				   f' on CPU{at.cpu} at swsusp_arch_resume')
	bases = []
	for kernel, lay, level_wanted in (('image', image, want),
					  ('restore', restore, want_restore)):
		pob = lay.get('page_offset_base', 0)
		level = address_level(pob)
		ok = ok and level == level_wanted
		bases.append(f'{pob:#x} ({kernel}, ' +
			     (f'{level}-level range)' if level else
			      'not a kernel address)'))
	got.append('page_offset_base ' + ' -> '.join(bases))
	claim = f'{want}-level' if want == want_restore else \
		f'{want}-level image, {want_restore}-level restore kernel'
	return check(name, ok, (f'{claim}: ' if ok else
				f'want {claim} paging, got: ') + ', '.join(got))
