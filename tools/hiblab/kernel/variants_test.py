#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build variants of the guest."""

import contextlib
import os
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.kernel import guest, variants
from hiblab.lab import scenarios


def committed(src: Path, files: dict) -> Git:
	"""A new repository at src with files (name: text) in one commit."""
	src.mkdir()
	git = Git(src)
	git.run(['init', '-q'])
	for name, text in files.items():
		(src / name).write_text(text)
	git.run(['add'] + list(files))
	git.run(['commit', '-q', '-m', 'base'],
		env={'GIT_AUTHOR_NAME': 't', 'GIT_AUTHOR_EMAIL': 't@t',
		     'GIT_COMMITTER_NAME': 't', 'GIT_COMMITTER_EMAIL': 't@t'})
	return git


class VariantTest(unittest.TestCase):
	def test_variant_carries_local_changes_and_the_patch(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			src = Path(tmp) / 'src'
			committed(src, {'a.c': 'one\ntwo\n'})
			(src / 'a.c').write_text('one\nTWO\n')	# uncommitted
			(src / 'new.c').write_text('new\n')	# untracked
			vdir = Path(tmp) / 'variants'
			vdir.mkdir()
			(vdir / 'v.patch').write_text(
				'Variant: v\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n'
				'+++ b/a.c\n@@ -1,2 +1,3 @@\n one\n TWO\n+three\n')
			old = variants.VARIANT_DIR
			variants.VARIANT_DIR = vdir
			try:
				wt = variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').read_text(),
						 'one\nTWO\nthree\n')
				self.assertEqual((wt / 'new.c').read_text(), 'new\n')
				self.assertEqual((src / 'a.c').read_text(),
						 'one\nTWO\n')
				# Preparing it again rewrites nothing (builds stay
				# incremental).
				before = (wt / 'a.c').stat().st_mtime_ns
				variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').stat().st_mtime_ns, before)
				(src / 'a.c').write_text('other\n')
				with self.assertRaisesRegex(LabError, 'no longer applies'):
					variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				with self.assertRaisesRegex(LabError, 'no lab variant'):
					variants.variant_tree(src, Path(tmp) / 'c', 'b', 'w')
			finally:
				variants.VARIANT_DIR = old

	def test_applied_in_place_then_the_tree_as_it_was(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			src = Path(tmp) / 'src'
			git = committed(src, {'a.c': 'one\ntwo\n', 'b.c': 'b\n'})
			# A mutant's change, kept through the variant's build.
			(src / 'a.c').write_text('one\nTWO\n')
			patch = Path(tmp) / 'v.patch'
			patch.write_text(
				'diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n'
				'@@ -1,2 +1,3 @@\n one\n TWO\n+three\n')
			with variants.applied(git, patch, 'v'):
				self.assertEqual((src / 'a.c').read_text(),
						 'one\nTWO\nthree\n')
			self.assertEqual((src / 'a.c').read_text(), 'one\nTWO\n')
			self.assertEqual(git.dirty_paths(), ['a.c'])
			# Restored also when the build in the block fails.
			with self.assertRaises(LabError):
				with variants.applied(git, patch, 'v'):
					raise LabError('guest build failed')
			self.assertEqual((src / 'a.c').read_text(), 'one\nTWO\n')
			(src / 'a.c').write_text('other\n')
			with self.assertRaisesRegex(LabError, 'no longer applies'):
				with variants.applied(git, patch, 'v'):
					self.fail('applied a patch that does not apply')
			self.assertEqual((src / 'a.c').read_text(), 'other\n')

	def test_every_scenario_names_existing_variants(self) -> None:
		for s in scenarios.SCENARIOS.values():
			for b in (s.build, s.restore):
				if b.patch:
					variants.patch_path(b.patch)
				if b.config:
					guest.read_fragment(
						(variants.config_path(b.config),))



class KernelsTest(unittest.TestCase):
	def test_each_build_once_and_a_variant_a_base_lacks_is_plain(self) -> None:
		built = []

		def build_guest(req, progress):
			built.append((req.variant, [Path(f).name
						    for f in req.fragments]))
			return req.variant

		def names(base: str) -> list:
			return [f.name for f in guest.check_fragments(base)]

		mainline = variants.MAINLINE_CORE_ONLINE
		for base, want in (('7.3', [('topic', names('7.3'))]),
				   ('6.12', [('variant-mainline-core-online',
					      names('6.12')),
					     ('topic', names('6.12'))])):
			built.clear()
			kernels = variants.Kernels(variants.KernelsRequest(
				Path('/t'), 'topic', base, Path('/c'), 1), print)
			with unittest.mock.patch.object(
				variants.guest, 'build_guest', build_guest), \
			     unittest.mock.patch.object(
				variants, 'variant_tree', lambda *a: Path('/v')):
				for build in (mainline, variants.PLAIN, mainline):
					kernels.get(build)
			with self.subTest(base=base):
				self.assertEqual(built, want)

	def test_in_place_variant_starts_from_the_plain_build(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			built = []

			def build_guest(req, progress):
				built.append((req.tree, req.variant))
				where = Path(tmp) / req.variant
				where.mkdir(exist_ok=True)
				return guest.GuestImage(where, where / 'bzImage',
							where / 'i', where / 'm')

			def applied(git, patch, name):
				built.append(('applied', name))
				return contextlib.nullcontext()

			kernels = variants.Kernels(variants.KernelsRequest(
				Path('/t'), 'check', '7.3', Path(tmp), 1,
				in_place=True), print)
			with unittest.mock.patch.object(
				variants.guest, 'build_guest', build_guest), \
			     unittest.mock.patch.object(
				variants.guest, 'build_dir_for',
				lambda req: Path(tmp) / 'copy'), \
			     unittest.mock.patch.object(variants, 'applied',
							applied):
				plain = Path(tmp) / 'check'
				plain.mkdir()
				(plain / 'vmlinux.o').write_text('o')
				(plain / 'vmlinux').write_text('v')
				kernels.get(variants.FOREIGN_RESTORE_MAGIC)
				copy = Path(tmp) / 'copy'
				self.assertEqual(built, [
					(Path('/t'), 'check'),
					('applied', 'foreign-restore-magic'),
					(Path('/t'), 'check-in-place-foreign-restore-magic')])
				self.assertEqual((copy / 'vmlinux.o').read_text(), 'o')
				# The same plain build: the copy is built on as it is.
				(copy / 'variant.o').write_text('p')
				again = variants.Kernels(kernels.req, print)
				again.get(variants.FOREIGN_RESTORE_MAGIC)
				self.assertEqual((copy / 'variant.o').read_text(), 'p')
				# A newer plain build: a fresh copy of it.
				(plain / 'vmlinux.o').write_text('o2')
				os.utime(plain / 'vmlinux', ns=(1, 1))
				again = variants.Kernels(kernels.req, print)
				again.get(variants.FOREIGN_RESTORE_MAGIC)
				self.assertEqual((copy / 'vmlinux.o').read_text(), 'o2')
				self.assertFalse((copy / 'variant.o').exists())

	def test_a_failed_build_is_remembered(self) -> None:
		calls = []

		def build_guest(req, progress):
			calls.append(req.variant)
			raise LabError('guest build failed: x.c:1:1: error: y')

		kernels = variants.Kernels(variants.KernelsRequest(
			Path('/t'), 'topic', '7.3', Path('/c'), 1), print)
		with unittest.mock.patch.object(variants.guest, 'build_guest',
						build_guest):
			for _ in range(2):
				with self.assertRaisesRegex(LabError, 'error: y'):
					kernels.get(variants.PLAIN)
		self.assertEqual(calls, ['topic'])
		self.assertIn('error: y', kernels.problem(variants.PLAIN))
		self.assertEqual(kernels.problem(variants.LOCKDEP_TRACE), '')


if __name__ == '__main__':
	unittest.main()
