#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The guest: config fragment, initramfs."""

import os
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from hiblab.errors import LabError
from hiblab.kernel import guest

TEST_DATA = Path(__file__).resolve().parent / 'test_data'


class GuestTest(unittest.TestCase):
	def test_fragment_and_missing_options(self) -> None:
		want = guest.read_fragment((guest.FRAGMENT,))
		self.assertEqual(want['CONFIG_HIBERNATION'], 'y')
		self.assertEqual(want['CONFIG_RANDOMIZE_MEMORY'], 'y')
		config = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=8\n'
		self.assertEqual(guest.missing_options(
			config, {'CONFIG_A': 'y', 'CONFIG_B': 'n', 'CONFIG_C': '4',
				 'CONFIG_D': 'y'}), ['CONFIG_C=4', 'CONFIG_D=y'])

	def test_a_config_another_make_rewrote_is_made_again(self) -> None:
		# A series' per-commit build of a commit without our KUnit
		# Kconfig symbols shares the check kernel's build directory and
		# leaves a .config without them behind the stamp's back.
		with tempfile.TemporaryDirectory() as tmp:
			frag = Path(tmp) / 'a.config'
			frag.write_text('CONFIG_A=y\n')
			req = guest.GuestRequest(Path(tmp) / 'tree', Path(tmp),
						 'check', 1, (frag,))
			made = []

			def make(req, build, goals, log, extra=()):
				made.append(goals)
				(build / '.config').write_text('CONFIG_A=y\n')

			with unittest.mock.patch.object(guest, '_make', make), \
			     unittest.mock.patch.object(guest, 'config_key',
							lambda t, f: 'key'), \
			     unittest.mock.patch.object(guest, 'undefined_symbols',
							lambda t, o: []):
				build = guest.configure(req)
				guest.configure(req)
				self.assertEqual(len(made), 1)
				(build / '.config').write_text('# CONFIG_A is not set\n')
				guest.configure(req)
				self.assertEqual(len(made), 2)

	def test_first_error_of_a_real_build_log(self) -> None:
		# A 7.3 series commit that did not build (make series, mutant
		# commit-does-not-build): the compiler's line, not make's.
		log = (TEST_DATA / 'build-7.3-implicit-declaration.log').read_text()
		self.assertRegex(guest.first_error(log),
				 r'^/\S+/hibernate_64\.c:137:14: error: implicit '
				 "declaration of function .restore_code_fits_page.")
		make_only = '\n'.join(l for l in log.splitlines()
				      if ': error: ' not in l)
		self.assertRegex(guest.first_error(make_only), r'^make\[4\]: '
				 r'\*\*\* .*hibernate_64\.o\] Error 1$')
		self.assertEqual(guest.first_error(''), 'no output')

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


	def test_a_copied_build_keeps_objtool_older_than_its_objects(self) -> None:
		# In a plain copy, tools/' make links objtool again (its recorded
		# commands name the old directory), and every object, older
		# than the new objtool, compiles again.
		with tempfile.TemporaryDirectory() as tmp:
			source, copy = Path(tmp) / 'plain', Path(tmp) / 'copy'
			objtool = source / 'tools' / 'objtool' / 'objtool'
			objtool.parent.mkdir(parents=True)
			objtool.write_text('old')
			(source / 'init').mkdir()
			(source / 'init' / 'main.o').write_text('o')
			os.utime(objtool, ns=(10**18, 10**18))
			os.utime(source / 'init' / 'main.o', ns=(2 * 10**18,) * 2)
			made = []

			def make(req, build, targets, log, extra=()):
				made.append((build, targets))
				linked = build / 'tools' / 'objtool' / 'objtool'
				linked.write_text('new')
				(linked.parent / 'libsubcmd.a').write_text('a')

			req = guest.GuestRequest(Path('/t'), Path(tmp), 'copy', 1, ())
			with unittest.mock.patch.object(guest, '_make', make):
				guest.copy_build(req, source, copy)
			self.assertEqual(made, [(copy, ['tools/objtool'])])
			for p in (copy / 'tools').rglob('*'):
				with self.subTest(path=p):
					self.assertLessEqual(p.stat().st_mtime_ns,
							     10**18)
			self.assertEqual((copy / 'init' / 'main.o').stat()
					 .st_mtime_ns, 2 * 10**18)
			self.assertEqual(objtool.read_text(), 'old')

if __name__ == '__main__':
	unittest.main()
