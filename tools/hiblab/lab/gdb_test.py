#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""gdb's thread list and QEMU's register dump."""

import unittest
from pathlib import Path

from hiblab.lab import gdb

TEST_DATA = Path(__file__).resolve().parent / 'test_data'


class GdbTest(unittest.TestCase):
	def test_parse_threads(self) -> None:
		text = ('  Id   Target Id                    Frame \n'
			'* 1    Thread 1.1 (CPU#0 [running]) 0xffffffff8b40e5f0 in ?? ()\n'
			'  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c6e in ?? ()\n')
		cpus = gdb.parse_threads(text)
		self.assertEqual(cpus, [gdb.VCpu(0, 'running', 0xffffffff8b40e5f0),
					gdb.VCpu(1, 'halted', 0xffffffff8b0a3c6e)])

	HMP = ('\nCPU#0\n'
	       'RAX=0000000000000000 RBX=0000000000000001\n'
	       'RIP=ffffffff8b40e5f0 RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 '
	       'SMM=0 HLT=0\n'
	       'ES =0000 0000000000000000 00000000 00000000\n'
	       'CR0=80050033 CR2=ffff99f395401000 CR3=0000000001b7b000 '
	       'CR4=00351eb0\n'
	       '\nCPU#1\n'
	       'RIP=ffffffff8b0a3c6e RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 '
	       'SMM=0 HLT=1\n')

	def test_hmp_hlt_flag_joins_the_thread_list(self) -> None:
		text = ('* 1    Thread 1.1 (CPU#0 [running]) 0xffffffff8b40e5f0 in ?? ()\n'
			'  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c6e in ?? ()\n'
			+ self.HMP)
		self.assertEqual(gdb.parse_hmp_registers(self.HMP),
				 {0: (0xffffffff8b40e5f0, False, 0x351eb0),
				  1: (0xffffffff8b0a3c6e, True, None)})
		cpus = gdb.parse_threads(text)
		self.assertEqual([c.hlt for c in cpus], [False, True])
		self.assertEqual([c.cr4 for c in cpus], [0x351eb0, None])

	def test_cr4_of_a_captured_dump(self) -> None:
		# 6.12 smoke: 4-level paging, CR4.LA57 (bit 12) clear.
		cpus = gdb.parse_threads((TEST_DATA / 'cycles' / '6.12-smoke' /
					      'gdb-transcript.txt').read_text())
		self.assertEqual([c.cr4 for c in cpus], [0x350eb0] * 4)

	def test_firmware_halt_loop_has_an_eip_line(self) -> None:
		# maxcpus=2 on the mainline-core-online variant: CPUs 2-3 were
		# never started by the restore kernel and sit in SeaBIOS's
		# 32-bit halt loop, where HMP prints EIP= instead of RIP=.
		cpus = gdb.parse_threads((TEST_DATA / 'lab-maxcpus' /
					      'gdb-transcript.txt').read_text())
		self.assertEqual([(c.state, c.hlt) for c in cpus],
				 [('running', False)] + [('halted', True)] * 3)
		self.assertEqual([c.pc for c in cpus[2:]], [0xfd09a] * 2)

	def test_hmp_dump_of_another_rip_is_not_used(self) -> None:
		text = ('  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c70 in ?? ()\n'
			+ self.HMP)
		self.assertIsNone(gdb.parse_threads(text)[0].hlt)


if __name__ == '__main__':
	unittest.main()
