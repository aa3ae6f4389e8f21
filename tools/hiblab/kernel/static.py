# SPDX-License-Identifier: GPL-2.0
"""Static checks of a built vmlinux: the restore path's instruction rules.

Each check disassembles the function it is about with objdump (running),
then a pure judge decides on the instructions (judging; tested on captured
objdump and nm output of real kernels in test_data/static/).  A verdict
names the range it inspected, or the offending instruction.
"""

import re
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab.verdict import FAIL, PASS, Verdict

Insn = Tuple[int, str]		# (address, "mnemonic operands")

_LINE = re.compile(r'^\s*([0-9a-f]+):\s+(.*\S)\s*$')
STACK = re.compile(r'^(push|pop|call|enter|leave|ret)|%[re]?sp\b|%[re]?bp\b')
_IMM = re.compile(r'\$(0x[0-9a-f]+)')
# Direct map up to the end of the kernel image: an immediate in this range
# is an address (e.g. of page_offset_base, as __PAGE_OFFSET becomes with
# RANDOMIZE_MEMORY); masks such as ~X86_CR4_PGE lie above it.
KERNEL_RANGE = (0xffff800000000000, 0xffffffffc0000000)


# The checks' names, as verdicts and mutants' Killed-by: lines spell them.
NO_STACK_BEFORE_CR3 = 'static/restore_registers-no-stack-before-cr3'
POSITION_INDEPENDENT = 'static/core_restore_code-position-independent'
NO_CR3_SWITCH = 'static/restore_image-no-cr3-switch'
RESTORES_STATE_FIRST = 'static/create_image-restores-state-first'
NAMES = (NO_STACK_BEFORE_CR3, POSITION_INDEPENDENT, NO_CR3_SWITCH,
	 RESTORES_STATE_FIRST)


def kernel_immediate(text: str) -> bool:
	return any(KERNEL_RANGE[0] <= int(v, 16) < KERNEL_RANGE[1]
		   for v in _IMM.findall(text))


def objdump_command(vmlinux: Path, symbol: str) -> List[str]:
	return ['objdump', '-d', '--no-show-raw-insn', '--wide',
		f'--disassemble={symbol}', str(vmlinux)]


def parse_objdump(text: str) -> List[Insn]:
	insns = []
	for line in text.splitlines():
		m = _LINE.match(line)
		if m:
			insns.append((int(m.group(1), 16),
				      re.sub(r'\s+', ' ', m.group(2))))
	return insns


def disassemble(vmlinux: Path, symbol: str) -> List[Insn]:
	return parse_objdump(subprocess.run(
		objdump_command(vmlinux, symbol), stdout=subprocess.PIPE,
		stderr=subprocess.DEVNULL, check=False).stdout.decode())


def parse_nm(text: str) -> Dict[str, int]:
	"""Symbol -> address from `nm` output (the first of duplicates)."""
	syms: Dict[str, int] = {}
	for line in text.splitlines():
		f = line.split()
		if len(f) == 3:
			syms.setdefault(f[2], int(f[0], 16))
	return syms


def symbols(vmlinux: Path) -> Dict[str, int]:
	return parse_nm(subprocess.run(['nm', str(vmlinux)],
				       stdout=subprocess.PIPE,
				       check=False).stdout.decode())


_CALL = re.compile(r'^call\s+([0-9a-f]+)\b')


def call_target(text: str) -> Optional[int]:
	"""The address a direct call goes to; None for anything else."""
	m = _CALL.match(text)
	return int(m.group(1), 16) if m else None


def _span(insns: List[Insn]) -> str:
	return f'{insns[0][0]:#x}-{insns[-1][0]:#x}' if insns else 'empty'


def _writes_cr3(text: str) -> bool:
	return text.startswith('mov ') and text.endswith(',%cr3')


def check_restore_registers(vmlinux: Path) -> Verdict:
	return judge_restore_registers(disassemble(vmlinux, 'restore_registers'))


def judge_restore_registers(insns: List[Insn]) -> Verdict:
	"""No stack access before CR3 is the image kernel's (4ce827b4cc58)."""
	name = NO_STACK_BEFORE_CR3
	cut = next((i for i, (_, t) in enumerate(insns) if _writes_cr3(t)), None)
	if cut is None:
		return Verdict(name, FAIL, f'no CR3 write in restore_registers '
			       f'({len(insns)} instructions)')
	before = insns[:cut]
	bad = [(a, t) for a, t in before if STACK.search(t)]
	where = f'restore_registers {_span(insns[:cut + 1])}, {cut} ' \
		'instruction(s) before the CR3 write'
	if bad:
		return Verdict(name, FAIL, f'{bad[0][0]:#x}: {bad[0][1]} ({where})')
	return Verdict(name, PASS, where)


def check_core_restore_code(vmlinux: Path) -> Verdict:
	return judge_core_restore_code(disassemble(vmlinux, 'core_restore_code'))


def judge_core_restore_code(insns: List[Insn]) -> Verdict:
	"""Relocated code: no stack, no RIP-relative or kernel-address operand
	(c226fab47429, 65c0554b73c9)."""
	name = POSITION_INDEPENDENT
	if not insns:
		return Verdict(name, FAIL, 'core_restore_code not found')
	for a, t in insns:
		if STACK.search(t) or '(%rip)' in t or kernel_immediate(t):
			return Verdict(name, FAIL, f'{a:#x}: {t} (core_restore_code '
				       f'{_span(insns)})')
	if not insns[-1][1].startswith('jmp *'):
		return Verdict(name, FAIL, f'does not end in an indirect jump: '
			       f'{insns[-1][1]}')
	return Verdict(name, PASS, f'core_restore_code {_span(insns)}, '
		       f'{len(insns)} instructions')


def check_restore_image(vmlinux: Path) -> Verdict:
	return judge_restore_image(disassemble(vmlinux, 'restore_image'))


def judge_restore_image(insns: List[Insn]) -> Verdict:
	"""The CR3 switch happens in the relocated copy, not in kernel text
	(65c0554b73c9)."""
	name = NO_CR3_SWITCH
	if not insns:
		return Verdict(name, FAIL, 'restore_image not found')
	for a, t in insns:
		if _writes_cr3(t) or STACK.search(t):
			return Verdict(name, FAIL, f'{a:#x}: {t} (restore_image '
				       f'{_span(insns)})')
	return Verdict(name, PASS, f'restore_image {_span(insns)}, '
		       f'{len(insns)} instructions, ends in {insns[-1][1]}')


# create_image() is inlined into hibernation_snapshot() in some builds.
CREATE_IMAGE_FUNCS = ('create_image', 'hibernation_snapshot')


def check_create_image_order(vmlinux: Path) -> Verdict:
	return judge_create_image_order(
		{f: disassemble(vmlinux, f) for f in CREATE_IMAGE_FUNCS},
		symbols(vmlinux))


def judge_create_image_order(funcs: Dict[str, List[Insn]],
			     syms: Dict[str, int]) -> Verdict:
	"""After swsusp_arch_suspend() returns, restore_processor_state() is
	the very next thing: no tracing, no per-CPU access (62822e2ec4ad).
	Calls are matched by exact target address, and both functions must
	be real symbols: a missing one is a FAIL, never a match."""
	name = RESTORES_STATE_FIRST
	if not syms.get('__tracepoint_suspend_resume'):
		return Verdict(name, FAIL, 'the kernel has no suspend_resume '
			       'tracepoint (CONFIG_TRACEPOINTS off): this check '
			       'would be blind; build it with tracing')
	missing = [s for s in ('swsusp_arch_suspend', 'restore_processor_state')
		   if not syms.get(s)]
	if missing:
		return Verdict(name, FAIL, f'no symbol {", ".join(missing)} in '
			       'the kernel: nothing to check the order against')
	suspend = syms['swsusp_arch_suspend']
	restore = syms['restore_processor_state']
	for func in CREATE_IMAGE_FUNCS:
		insns = funcs.get(func, [])
		calls = [i for i, (_, t) in enumerate(insns)
			 if call_target(t) == suspend]
		if calls:
			break
	else:
		return Verdict(name, FAIL, 'no call to swsusp_arch_suspend found '
			       f'in {" or ".join(CREATE_IMAGE_FUNCS)}')
	for a, t in insns[calls[0] + 1:]:
		if t.startswith('call'):
			ok = call_target(t) == restore
			return Verdict(name, PASS if ok else FAIL,
				       f'{func}: first call after swsusp_arch_suspend '
				       f'at {a:#x} is {t}')
		if t.startswith('j') or t.startswith('nop') or '%gs:' in t:
			return Verdict(name, FAIL, f'{func} {a:#x}: {t} between '
				       'swsusp_arch_suspend and '
				       'restore_processor_state (a tracepoint or '
				       'per-CPU access)')
	return Verdict(name, FAIL, f'{func}: no call after swsusp_arch_suspend')


CHECKS = (check_restore_registers, check_core_restore_code,
	  check_restore_image, check_create_image_order)


# What the checks read: kept next to their verdicts (and, copied into
# test_data/static/, the judges' test input).
FUNCTIONS = ('restore_registers', 'core_restore_code', 'restore_image') + \
	CREATE_IMAGE_FUNCS
SYMBOLS = ('__tracepoint_suspend_resume', 'swsusp_arch_suspend',
	   'restore_processor_state') + FUNCTIONS


def capture(vmlinux: Path, dest: Path) -> None:
	"""The objdump and nm output the checks judge, as files in dest."""
	dest.mkdir(parents=True, exist_ok=True)
	for func in FUNCTIONS:
		out = subprocess.run(objdump_command(vmlinux, func),
				     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
				     check=False).stdout.decode()
		start = out.find('Disassembly of section')
		(dest / f'{func}.objdump').write_text(out[start:] if start >= 0
						     else '')
	nm = subprocess.run(['nm', str(vmlinux)], stdout=subprocess.PIPE,
			    check=False).stdout.decode()
	(dest / 'nm.txt').write_text(''.join(
		l + '\n' for l in nm.splitlines()
		if l.split()[-1:] and l.split()[-1] in SYMBOLS))


def run_all(vmlinux: Path, keep: Optional[Path] = None) -> List[Verdict]:
	"""Every check's verdict; with `keep`, what they read is saved there."""
	if not vmlinux.is_file():
		return [Verdict('static', FAIL, f'no vmlinux at {vmlinux} (the '
				'build before it failed)')]
	if keep:
		capture(vmlinux, keep)
	return [check(vmlinux) for check in CHECKS]
