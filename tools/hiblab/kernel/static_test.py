#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of kernel.static's judges on objdump/nm output captured from real
kernels (test_data/static/<capture>/, see its README)."""

import unittest
from pathlib import Path
from typing import Dict, List

from hiblab.kernel import static
from hiblab.verdict import FAIL, PASS

DATA = Path(__file__).resolve().parent / 'test_data' / 'static'


def insns(capture: str, func: str) -> List[static.Insn]:
	"""A missing capture is an error, never an empty (failing) input."""
	return static.parse_objdump(
		(DATA / capture / f'{func}.objdump').read_text())


def syms(capture: str) -> Dict[str, int]:
	return static.parse_nm((DATA / capture / 'nm.txt').read_text())


def create_image(capture: str, drop: str = '') -> static.Verdict:
	table = syms(capture)
	table.pop(drop, None)
	return static.judge_create_image_order(
		{f: insns(capture, f) for f in static.CREATE_IMAGE_FUNCS},
		table)


# The unmutated 7.3 topic branch's KUnit kernel (tracepoints on).
GOOD = '7.3-kunit'


class ParseTest(unittest.TestCase):
	def test_objdump_and_nm(self) -> None:
		code = insns(GOOD, 'core_restore_code')
		self.assertGreater(len(code), 5)
		self.assertTrue(all(a > 0xffffffff80000000 for a, _ in code))
		table = syms(GOOD)
		self.assertIn('restore_processor_state', table)
		self.assertEqual(static.call_target(
			'call ffffffff81234560 <restore_processor_state>'),
			0xffffffff81234560)
		self.assertIsNone(static.call_target('call *%rax'))


class JudgeTest(unittest.TestCase):
	def test_unmutated_kernel_passes_every_check(self) -> None:
		for v in (static.judge_restore_registers(
				  insns(GOOD, 'restore_registers')),
			  static.judge_core_restore_code(
				  insns(GOOD, 'core_restore_code')),
			  static.judge_restore_image(
				  insns(GOOD, 'restore_image')),
			  create_image(GOOD)):
			self.assertEqual(v.status, PASS, v.line())

	def test_missing_restore_processor_state_fails(self) -> None:
		# The old check looked up a missing symbol as address 0 and then
		# matched '0' anywhere in the call: it passed without checking.
		v = create_image(GOOD, drop='restore_processor_state')
		self.assertEqual(v.status, FAIL)
		self.assertIn('no symbol restore_processor_state', v.detail)
		v = create_image(GOOD, drop='swsusp_arch_suspend')
		self.assertIn('no symbol swsusp_arch_suspend', v.detail)

	def test_missing_tracepoint_is_blind(self) -> None:
		v = create_image(GOOD, drop='__tracepoint_suspend_resume')
		self.assertEqual(v.status, FAIL)
		self.assertIn('would be blind', v.detail)

	def test_call_to_another_function_fails(self) -> None:
		table = syms(GOOD)
		# restore_processor_state at another address: the call found
		# after swsusp_arch_suspend must not count as one to it.
		table['restore_processor_state'] += 0x10
		v = static.judge_create_image_order(
			{f: insns(GOOD, f) for f in static.CREATE_IMAGE_FUNCS},
			table)
		self.assertEqual(v.status, FAIL, v.line())

	def test_trace_before_restore_mutant(self) -> None:
		# seed-62822e2ec4ad-trace-before-restore built: the tracepoint's
		# static branch sits between the two calls.
		v = create_image('7.3-kunit-seed-62822e2ec4ad')
		self.assertEqual(v.status, FAIL)
		self.assertIn('between swsusp_arch_suspend and '
			      'restore_processor_state', v.detail)

	def test_stack_before_cr3_mutant(self) -> None:
		v = static.judge_restore_registers(insns(
			'7.3-kunit-seed-4ce827b4cc58', 'restore_registers'))
		self.assertEqual(v.status, FAIL)
		self.assertRegex(v.detail, r'push\s+%rbp')

	def test_page_offset_in_relocated_code_mutant(self) -> None:
		v = static.judge_core_restore_code(insns(
			'7.3-kunit-seed-c226fab47429', 'core_restore_code'))
		self.assertEqual(v.status, FAIL, v.line())

	def test_cr3_switch_in_kernel_text_mutant(self) -> None:
		v = static.judge_restore_image(insns(
			'7.3-kunit-seed-65c0554b73c9', 'restore_image'))
		self.assertEqual(v.status, FAIL)
		self.assertIn('%cr3', v.detail)

	def test_empty_disassembly_fails(self) -> None:
		for judge in (static.judge_restore_registers,
			      static.judge_core_restore_code,
			      static.judge_restore_image):
			self.assertEqual(judge([]).status, FAIL)


if __name__ == '__main__':
	unittest.main()
