#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The guest: config fragment, initramfs."""

import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.kernel import guest


class GuestTest(unittest.TestCase):
	def test_fragment_and_missing_options(self) -> None:
		want = guest.read_fragment((guest.FRAGMENT,))
		self.assertEqual(want['CONFIG_HIBERNATION'], 'y')
		self.assertEqual(want['CONFIG_RANDOMIZE_MEMORY'], 'y')
		config = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=8\n'
		self.assertEqual(guest.missing_options(
			config, {'CONFIG_A': 'y', 'CONFIG_B': 'n', 'CONFIG_C': '4',
				 'CONFIG_D': 'y'}), ['CONFIG_C=4', 'CONFIG_D=y'])
	def test_gen_init_cpio_failure_is_one_line(self) -> None:
		# check=True let a CalledProcessError traceback out of the lab.
		with tempfile.TemporaryDirectory() as tmp:
			gen = Path(tmp) / 'gen_init_cpio'
			gen.write_text('#!/bin/sh\necho "$1: line 6: /b/hiblab/init: '
				       'No such file or directory" >&2\nexit 1\n')
			gen.chmod(0o755)
			cpio_list = Path(tmp) / 'initramfs.list'
			cpio_list.write_text('file /init /b/hiblab/init 0755 0 0\n')
			out = Path(tmp) / 'initramfs.cpio'
			with self.assertRaisesRegex(LabError, 'gen_init_cpio failed '
						    f'on {cpio_list} .*/b/hiblab/init: '
						    'No such file.*check that every '
						    'file it names exists'):
				guest.write_initramfs(gen, cpio_list, out)
			gen.chmod(0o644)	# not executable, even for root
			with self.assertRaisesRegex(LabError, f'cannot run {gen} .*'
						    'next run rebuilds it'):
				guest.write_initramfs(gen, cpio_list, out)
			gen.write_text('#!/bin/sh\necho cpio\n')
			gen.chmod(0o755)
			guest.write_initramfs(gen, cpio_list, out)
			self.assertEqual(out.read_text(), 'cpio\n')


if __name__ == '__main__':
	unittest.main()
