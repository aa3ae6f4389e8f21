#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build variants of the guest."""

import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.kernel import guest, variants
from hiblab.lab import scenarios


class VariantTest(unittest.TestCase):
	def test_variant_carries_local_changes_and_the_patch(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			src = Path(tmp) / 'src'
			src.mkdir()
			git = Git(src)
			env = {'GIT_AUTHOR_NAME': 't', 'GIT_AUTHOR_EMAIL': 't@t',
			       'GIT_COMMITTER_NAME': 't', 'GIT_COMMITTER_EMAIL': 't@t'}
			git.run(['init', '-q'])
			(src / 'a.c').write_text('one\ntwo\n')
			git.run(['add', 'a.c'])
			git.run(['commit', '-q', '-m', 'base'], env=env)
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

	def test_every_scenario_names_existing_variants(self) -> None:
		for s in scenarios.SCENARIOS.values():
			for b in (s.build, s.restore):
				if b.patch:
					variants.patch_path(b.patch)
				if b.config:
					guest.read_fragment(
						(variants.config_path(b.config),))


if __name__ == '__main__':
	unittest.main()
