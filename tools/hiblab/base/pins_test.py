#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Pins and the base import, on a tiny fake base."""

import unittest
from pathlib import Path

from hiblab import paths
from hiblab.base import pins
from hiblab.errors import LabError
from hiblab.testing import (FAKE_FILES, LabTestCase, commit_in_tree,
			    installed_ok, quiet)


class PinTest(LabTestCase):
	def test_reads_every_fact(self) -> None:
		pin = self.fake.pin
		self.assertEqual(pin.package, 'linux-source-fake')
		self.assertEqual(pin.kernel_version, '6.0.1')
		self.assertEqual(pin.tag, 'base/6.0.1')
		self.assertEqual(pin.tarball, self.fake.tarball)

	def test_real_pin_is_complete(self) -> None:
		pin = pins.read_pin(paths.base_pin_file())
		self.assertEqual(pin.package, 'linux-source-6.12')
		self.assertEqual(len(pin.sha256), 64)
		self.assertTrue(pin.package_version.startswith(pin.kernel_version))

	def test_missing_key_is_named(self) -> None:
		path = self.root / 'pin.txt'
		path.write_text('[b]\npackage = x\n')
		with self.assertRaisesRegex(LabError, r'\[b\] misses package_version'):
			pins.read_pin(path)
		path.write_text(self.fetched_pin().replace('deb_sha256', '#'))
		with self.assertRaisesRegex(LabError, r'\[7.3\] misses deb_sha256'):
			pins.read_pin(path)

	def test_bad_and_duplicate_lines(self) -> None:
		path = self.root / 'pin.txt'
		for text in ('[b]\npackage x\n', '[b]\ncolor = red\n',
			     '[b]\npackage = a\npackage = b\n', 'package = a\n'):
			path.write_text(text)
			with self.assertRaisesRegex(LabError, r'pin.txt:\d: bad line'):
				pins.read_pin(path)
		path.write_text('[b]\n[b]\n')
		with self.assertRaisesRegex(LabError, 'pinned twice'):
			pins.read_pin(path)

	def fetched_pin(self) -> str:
		return ('[7.3]\npackage = linux-source-7.3\n'
			'package_version = 7.3.4-1~bpo13+1\nsuite = trixie-backports\n'
			f'deb_sha256 = {"a" * 64}\n'
			'tarball = /usr/src/linux-source-7.3.tar.xz\n'
			f'sha256 = {"b" * 64}\nkernel_version = 7.3.4\n')

	def test_bases_by_name_default_first(self) -> None:
		path = self.root / 'pin.txt'
		path.write_text(paths.base_pin_file(self.fake.repo).read_text() +
				'\n' + self.fetched_pin())
		self.assertEqual(list(pins.read_bases(path)), ['fake', '7.3'])
		self.assertEqual(pins.read_pin(path).name, 'fake')
		pin = pins.read_pin(path, '7.3')
		self.assertEqual((pin.suite, pin.deb_sha256), ('trixie-backports',
							      'a' * 64))
		# A fetched base's tarball is in the cache, never in /usr/src.
		self.assertEqual(pin.tarball_path(Path('/c')), Path(
			'/c/bases/7.3/root/usr/src/linux-source-7.3.tar.xz'))
		self.assertEqual(pins.read_pin(path).tarball_path(Path('/c')),
				 self.fake.tarball)
		with self.assertRaisesRegex(LabError, r"unknown base '7\.4': "
					    'choose one of fake, 7.3'):
			pins.read_pin(path, '7.4')

	def test_real_bases(self) -> None:
		pinned = pins.read_bases(paths.base_pin_file())
		self.assertEqual(list(pinned), ['6.12', '7.3'])
		self.assertFalse(pinned['6.12'].suite)
		self.assertEqual(pinned['7.3'].suite, 'trixie-backports')
		for pin in pinned.values():
			self.assertTrue(pin.package_version.startswith(
				pin.kernel_version))

class ImportTest(LabTestCase):
	def test_import_commits_and_tags_the_tarball(self) -> None:
		tree = self.fake.open()
		git = tree.git
		self.assertEqual(git.rev('base/6.0.1'), tree.base)
		files = git.text(['ls-files']).splitlines()
		self.assertEqual(sorted(files), sorted(FAKE_FILES))
		msg = git.text(['log', '-1', '--format=%B', tree.base])
		self.assertIn(f'sha256: {self.fake.pin.sha256}', msg)
		self.assertIn('version: 1.0-1', msg)
		self.assertFalse(git.dirty_paths())

	def test_new_files_are_visible_despite_debians_catch_all(self) -> None:
		git = self.fake.open().git
		self.assertFalse(git.dirty_paths())
		(self.fake.tree / 'arch/x86/mm/new_kunit.c').write_text('x\n')
		self.assertEqual(git.dirty_paths(), ['arch/x86/mm/new_kunit.c'])
		(self.fake.tree / 'arch/x86/mm/new.o').write_text('x\n')
		git.run(['add', 'arch'])
		self.assertEqual(git.text(['diff', '--cached', '--name-only']),
				 'arch/x86/mm/new_kunit.c')
		self.assertIn('/*', git.text(['show', 'HEAD:.gitignore']))

	def test_reimport_is_a_noop_and_ids_are_machine_independent(self) -> None:
		first = self.fake.open()
		mtime = (self.fake.tree / 'Makefile').stat().st_mtime_ns
		self.assertEqual(self.fake.open().base, first.base)
		self.assertEqual((self.fake.tree / 'Makefile').stat().st_mtime_ns,
				 mtime)
		other = pins.import_base(self.fake.pin, self.root / 'other',
					     self.fake.tarball, installed_ok, quiet)
		self.assertEqual(other.rev('base/6.0.1'), first.base)

	def test_wrong_sha256_is_refused_and_nothing_written(self) -> None:
		self.fake.write_pin('0' * 64)
		with self.assertRaisesRegex(LabError, 'linux-base.txt pins 0000'):
			self.fake.open()
		self.assertFalse(self.fake.tree.exists())
		self.assertFalse(self.fake.cache.exists() and
				 any(self.fake.cache.iterdir()))

	def test_missing_package_says_make_setup(self) -> None:
		with self.assertRaisesRegex(LabError, 'not installed: run `make '
					    'setup`'):
			pins.import_base(self.fake.pin, self.fake.tree,
					     self.fake.tarball, lambda p: None, quiet)
		with self.assertRaisesRegex(LabError, 'version 0.9 is installed'):
			pins.import_base(self.fake.pin, self.fake.tree,
					     self.fake.tarball, lambda p: '0.9', quiet)
		self.assertFalse(self.fake.tree.exists())

	def test_base_tag_pointing_elsewhere_is_refused(self) -> None:
		git = self.fake.open().git
		(self.fake.tree / 'Makefile').write_text('VERSION = 7\n')
		commit_in_tree(git, 'other\n', '2026-01-01T00:00:00+00:00')
		git.run(['tag', '-f', 'base/6.0.1'])
		with self.assertRaisesRegex(LabError, 'not the import of sha256'):
			self.fake.open()

	def test_stale_tree_of_another_pin_is_refused(self) -> None:
		self.fake.open()
		self.fake.tree.joinpath('.git').rename(self.root / 'moved-git')
		with self.assertRaisesRegex(LabError, 'is not a git tree'):
			self.fake.open()

	def test_interrupted_import_is_redone(self) -> None:
		staging = self.fake.tree.with_name('linux-fake.importing')
		staging.mkdir(parents=True)
		(staging / 'junk').write_text('half\n')
		tree = self.fake.open()
		self.assertFalse(staging.exists())
		self.assertNotIn('junk', tree.git.text(['ls-files']))


if __name__ == '__main__':
	unittest.main()
