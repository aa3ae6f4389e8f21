#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""QEMU's command line for a scenario's boots (lab_qemu.boot_argv)."""

import dataclasses
import unittest
from pathlib import Path

import lab_guest
import lab_qemu
import lab_scenarios

IMG = lab_guest.GuestImage(Path('/b'), Path('/b/bzImage'), Path('/b/i.cpio'),
			   Path('/b/System.map'))


class BootArgvTest(unittest.TestCase):
	def test_restore_boot(self) -> None:
		s = dataclasses.replace(lab_scenarios.SCENARIOS['offline-restore'],
					cmdline_restore='nosmt')
		argv = lab_qemu.boot_argv(s, IMG, 'tcg', 'restore', Path('/r/c.log'),
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
		image = lab_qemu.boot_argv(s, IMG, 'tcg', 'image', Path('/c'),
					   Path('/d'))
		self.assertNotIn('-gdb', image)
		self.assertNotIn('nosmt', image[image.index('-append') + 1])

	def test_rounds_trace_churn_and_restore_memory(self) -> None:
		s = dataclasses.replace(lab_scenarios.SCENARIOS['three-cycles'],
					trace=True, churn=True,
					restore_memory_mb=1536)
		image = lab_qemu.boot_argv(s, IMG, 'tcg', 'image', Path('/c'),
					   Path('/d'))
		restore = lab_qemu.boot_argv(s, IMG, 'tcg', 'restore', Path('/c'),
					     Path('/d'))
		cmdline = image[image.index('-append') + 1]
		for p in ('hiblab.cycles=3', 'hiblab.trace=1', 'hiblab.churn=1'):
			self.assertIn(p, cmdline)
		self.assertEqual(image[image.index('-m') + 1], '1024')
		self.assertEqual(restore[restore.index('-m') + 1], '1536')

	def test_probe_boot_has_no_disk(self) -> None:
		s = lab_scenarios.SCENARIOS['smoke']
		argv = lab_qemu.boot_argv(s, IMG, 'kvm', 'probe', Path('/c'))
		self.assertNotIn('-drive', argv)
		self.assertEqual(argv[argv.index('-accel') + 1], 'kvm')
		self.assertIn('hiblab.mode=probe', argv[argv.index('-append') + 1])


if __name__ == '__main__':
	unittest.main()
