#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where the vCPUs were, and which paging level ran: the judges on
written readings."""

import dataclasses
import unittest
import unittest.mock
from typing import List

from hiblab.lab import positions
from hiblab.lab.records import VCpuRecord
from hiblab.verdict import FAIL, PASS


def vcpu(cpu: int, state: str, function: str = 'hlt_play_dead',
	 hlt_before: bool = True, hlt=None, in_text: bool = True
	 ) -> VCpuRecord:
	return VCpuRecord(cpu, 0xffffffff82000109, state,
			  state == 'halted' if hlt is None else hlt, in_text,
			  f'{function}+0x9' if in_text else '',
			  function if in_text else '', hlt_before)


class ParkingTest(unittest.TestCase):
	"""Which vCPU positions at swsusp_arch_resume are safe."""

	def test_gdb_and_hmp_must_agree_on_halted(self) -> None:
		self.assertEqual(positions.parking_place(
			vcpu(3, 'halted', hlt=False)),
			(False, 'CPU3 halted (gdb) but HLT=0 (info registers) in '
			 'hlt_play_dead+0x9'))
		self.assertEqual(positions.parking_place(
			dataclasses.replace(vcpu(3, 'halted'), hlt=None)),
			(False, 'CPU3 halted (gdb) but not in `info registers -a` '
			 'at that RIP in hlt_play_dead+0x9'))

	def test_halted_after_hlt_in_a_parking_function(self) -> None:
		self.assertEqual(positions.parking_place(vcpu(3, 'halted')),
				 (True, 'CPU3 halted in hlt_play_dead+0x9'))

	def test_mwait_loop_is_rejected_by_state_and_by_instruction(self) -> None:
		self.assertEqual(positions.parking_place(
			vcpu(3, 'running', 'native_play_dead')),
			(False, 'CPU3 running in native_play_dead+0x9'))
		self.assertEqual(positions.parking_place(
			vcpu(3, 'halted', 'native_play_dead', hlt_before=False)),
			(False, 'CPU3 halted in native_play_dead+0x9 (not after a '
			 'HLT)'))

	def test_other_functions_are_rejected(self) -> None:
		self.assertEqual(positions.parking_place(
			vcpu(3, 'halted', 'do_idle')),
			(False, 'CPU3 halted in do_idle+0x9 (not a parking '
			 'function)'))

	def test_never_started_ap(self) -> None:
		c = dataclasses.replace(vcpu(2, 'halted', in_text=False), pc=0xfff0)
		self.assertEqual(positions.parking_place(c), (
			True, 'CPU2 halted at 0xfff0 (outside the kernel): never '
			'started by it'))
		c = dataclasses.replace(vcpu(2, 'running', in_text=False),
					pc=0xfff0)
		self.assertFalse(positions.parking_place(c)[0])

	def test_all_vcpus_must_be_seen(self) -> None:
		cpus = [vcpu(0, 'running', 'swsusp_arch_resume'),
			vcpu(1, 'halted')]
		v = positions.parking('hlt-parking', cpus, 4)
		self.assertEqual(v.status, FAIL)
		self.assertIn('gdb saw 2 of 4 vCPUs', v.detail)
		self.assertEqual(positions.parking('hlt-parking', [], 4).detail,
				 'the breakpoint at swsusp_arch_resume was not '
				 'reached')


class PagingTest(unittest.TestCase):
	"""The paging level, from CR4 at the breakpoint and the layouts."""
	L5 = {'page_offset_base': 0xff2e6a0000000000}
	L4 = {'page_offset_base': 0xffff99d380000000}

	def at_resume(self, cr4) -> List[VCpuRecord]:
		return [dataclasses.replace(vcpu(0, 'running', 'swsusp_arch_resume'),
					    cr4=cr4), vcpu(1, 'halted')]

	def test_address_ranges(self) -> None:
		level = positions.address_level
		self.assertEqual(level(0xffff800000000000), 4)
		self.assertEqual(level(0xffff7fffffffffff), 5)
		self.assertEqual(level(0xff11000000000000), 5)
		self.assertEqual(level(0xff00000000000000), 5)
		self.assertEqual(level(0xfeffffffffffffff), 0)
		self.assertEqual(level(0), 0)

	def test_five_levels_proven(self) -> None:
		v = positions.paging('paging', 5, self.at_resume(0x351eb0),
				     self.L5, self.L5)
		self.assertEqual(v.status, PASS)
		self.assertEqual(v.detail, '5-level: CR4=0x351eb0 (LA57) on CPU0 at '
				 'swsusp_arch_resume, page_offset_base '
				 '0xff2e6a0000000000 (image, 5-level range) -> '
				 '0xff2e6a0000000000 (restore, 5-level range)')

	def test_each_witness_alone_fails_it(self) -> None:
		for cr4, image, restore in ((0x350eb0, self.L5, self.L5),
					    (0x351eb0, self.L4, self.L5),
					    (0x351eb0, self.L5, self.L4)):
			with self.subTest(cr4=cr4, image=image, restore=restore):
				v = positions.paging('paging', 5, self.at_resume(cr4),
						     image, restore)
				self.assertEqual(v.status, FAIL)
				self.assertTrue(v.detail.startswith(
					'want 5-level paging, got: '), v.detail)

	def test_no_cr4_is_no_proof(self) -> None:
		for cpus in (self.at_resume(None), []):
			v = positions.paging('paging', 4, cpus, self.L4, self.L4)
			self.assertEqual(v.status, FAIL)
			self.assertIn('no CR4 of the vCPU at swsusp_arch_resume',
				      v.detail)

	def test_without_a_breakpoint_the_layouts_decide(self) -> None:
		# LAVA runs (no gdbstub) and scenarios without hlt_proof.
		v = positions.paging('paging', 4, None, self.L4, self.L4)
		self.assertEqual(v.status, PASS)
		self.assertNotIn('CR4', v.detail)


if __name__ == '__main__':
	unittest.main()
