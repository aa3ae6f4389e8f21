#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""QEMU's command line for a scenario's boots (qemu.boot_argv)."""

import dataclasses
import unittest
from pathlib import Path

from hiblab.kernel import guest
from hiblab.lab import qemu, scenarios, swap

IMG = guest.GuestImage(Path('/b'), Path('/b/bzImage'), Path('/b/i.cpio'),
			   Path('/b/System.map'))


class BootArgvTest(unittest.TestCase):
	def test_restore_boot(self) -> None:
		s = dataclasses.replace(scenarios.SCENARIOS['offline-restore'],
					cmdline_restore='nosmt')
		argv = qemu.boot_argv(s, IMG, 'tcg', 'restore', Path('/r/c.log'),
					  Path('/r/swap.img'), 1234)
		cmdline = argv[argv.index('-append') + 1]
		self.assertIn('hiblab.mode=restore', cmdline)
		self.assertIn('hiblab.offline_restore=3', cmdline)
		self.assertTrue(cmdline.endswith('nosmt'))
		self.assertIn('max,vendor=GenuineIntel', argv)
		self.assertEqual(argv[argv.index('-gdb') + 1], 'tcp:127.0.0.1:1234')
		self.assertEqual(argv[argv.index('-serial') + 1], 'file:/r/c.log')
		self.assertEqual(argv[argv.index('-drive') + 1],
				 'file=/r/swap.img,format=raw,if=virtio')
		image = qemu.boot_argv(s, IMG, 'tcg', 'image', Path('/c'),
					   Path('/d'))
		self.assertNotIn('-gdb', image)
		self.assertNotIn('nosmt', image[image.index('-append') + 1])

	def test_rounds_trace_churn_and_restore_memory(self) -> None:
		s = dataclasses.replace(scenarios.SCENARIOS['three-cycles'],
					trace=True, churn=True,
					restore_memory_mb=1536)
		image = qemu.boot_argv(s, IMG, 'tcg', 'image', Path('/c'),
					   Path('/d'))
		restore = qemu.boot_argv(s, IMG, 'tcg', 'restore', Path('/c'),
					     Path('/d'))
		cmdline = image[image.index('-append') + 1]
		for p in ('hiblab.cycles=3', 'hiblab.trace=1', 'hiblab.churn=1'):
			self.assertIn(p, cmdline)
		self.assertEqual(image[image.index('-m') + 1], '1024')
		self.assertEqual(restore[restore.index('-m') + 1], '1536')

	def test_probe_boot_has_no_disk(self) -> None:
		s = scenarios.SCENARIOS['smoke']
		argv = qemu.boot_argv(s, IMG, 'kvm', 'probe', Path('/c'))
		self.assertNotIn('-drive', argv)
		self.assertEqual(argv[argv.index('-accel') + 1], 'kvm')
		self.assertIn('hiblab.mode=probe', argv[argv.index('-append') + 1])


class KernelCmdlineTest(unittest.TestCase):
	CORRUPT = [s for s in scenarios.SCENARIOS.values() if s.corrupt]

	def test_the_local_lab_line_is_unchanged(self) -> None:
		s = dataclasses.replace(scenarios.SCENARIOS['corrupt-header'],
					cmdline_restore='nosmt')
		head = ('console=ttyS0 panic=-1 no_console_suspend loglevel=7 '
			'kunit.enable=0 ')
		want = head + 'hiblab.mode=restore hiblab.pattern_mb=342 nosmt'
		self.assertEqual(qemu.kernel_cmdline(s, 'restore'), want)
		self.assertEqual(qemu.kernel_cmdline(s, 'restore',
							 lava=False), want)
		self.assertEqual(qemu.kernel_cmdline(s, 'image'),
				 head + 'hiblab.mode=image hiblab.pattern_mb=342')

	def test_both_kernels_parameters_then_the_restore_kernel_s(self) -> None:
		s = dataclasses.replace(scenarios.SCENARIOS['no5lvl'],
					cmdline_restore='nosmt')
		head = ('console=ttyS0 panic=-1 no_console_suspend loglevel=7 '
			'kunit.enable=0 ')
		self.assertEqual(qemu.kernel_cmdline(s, 'image'), head +
				 'hiblab.mode=image hiblab.pattern_mb=342 no5lvl')
		self.assertEqual(qemu.kernel_cmdline(s, 'restore'), head +
				 'hiblab.mode=restore hiblab.pattern_mb=342 no5lvl '
				 'nosmt')

	def test_image_kernel_parameters_only_in_the_image_boot(self) -> None:
		s = scenarios.SCENARIOS['paging-4-to-5']
		self.assertTrue(qemu.kernel_cmdline(s, 'image')
				.endswith(' no5lvl'))
		self.assertNotIn('no5lvl', qemu.kernel_cmdline(s, 'restore'))

	def test_every_older_scenario_s_line_is_unchanged(self) -> None:
		# cmdline came with the configuration scenarios; a scenario
		# without it has the line it always had.
		for s in scenarios.SCENARIOS.values():
			if s.cmdline:
				continue
			for mode in ('image', 'restore'):
				with self.subTest(scenario=s.name, mode=mode):
					line = qemu.kernel_cmdline(s, mode)
					extra = s.cmdline_restore if mode == 'restore' \
						else s.cmdline_image
					params = line.split(' loglevel=7 ', 1)[1]
					self.assertEqual(params.split(' hiblab.')[-1]
							 .split(' ', 1)[1:],
							 [extra] if extra else [])

	def test_lava_protocol_on_the_console_and_no_go(self) -> None:
		s = scenarios.SCENARIOS['offline-restore']
		for mode in ('image', 'restore'):
			local = qemu.kernel_cmdline(s, mode)
			head = 'kunit.enable=0 '
			# The agent's lines are log records: no /dev/kmsg limit.
			self.assertEqual(qemu.kernel_cmdline(s, mode, lava=True),
					 local.replace(head, head + 'printk.devkmsg=on ')
					 + ' hiblab.proto=console hiblab.go=auto')

	def test_lava_agent_damages_in_the_restore_boot_only(self) -> None:
		# Every damage has a scenario (nocompress-corrupt shares
		# corrupt-data's), and there is no other.
		self.assertEqual({s.corrupt for s in self.CORRUPT},
				 set(swap.CORRUPTIONS))
		for s in self.CORRUPT:
			with self.subTest(scenario=s.name):
				s = dataclasses.replace(s, cmdline_restore='nosmt')
				image = qemu.kernel_cmdline(s, 'image', lava=True)
				restore = qemu.kernel_cmdline(s, 'restore',
								  lava=True)
				self.assertNotIn('hiblab.damage', image)
				self.assertIn(f' hiblab.damage={s.corrupt} ', restore)
				# The scenario's kernel parameters stay last.
				self.assertTrue(restore.endswith(' nosmt'))
				local = qemu.kernel_cmdline(s, 'restore')
				self.assertNotIn('hiblab.damage', local)

	def test_boot_argv_is_the_local_lab_s(self) -> None:
		s = self.CORRUPT[0]
		argv = qemu.boot_argv(s, IMG, 'tcg', 'restore', Path('/c'),
					  Path('/d'))
		self.assertEqual(argv[argv.index('-append') + 1],
				 qemu.kernel_cmdline(s, 'restore'))


if __name__ == '__main__':
	unittest.main()
