#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build variants of the guest."""

import tempfile
import unittest
from pathlib import Path

import lab_git
import lab_guest
import lab_scenarios
import lab_variants
from lab_errors import LabError


class VariantTest(unittest.TestCase):
	def test_variant_carries_local_changes_and_the_patch(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			src = Path(tmp) / 'src'
			src.mkdir()
			git = lab_git.Git(src)
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
			old = lab_variants.VARIANT_DIR
			lab_variants.VARIANT_DIR = vdir
			try:
				wt = lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').read_text(),
						 'one\nTWO\nthree\n')
				self.assertEqual((wt / 'new.c').read_text(), 'new\n')
				self.assertEqual((src / 'a.c').read_text(),
						 'one\nTWO\n')
				# Preparing it again rewrites nothing (builds stay
				# incremental).
				before = (wt / 'a.c').stat().st_mtime_ns
				lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').stat().st_mtime_ns, before)
				(src / 'a.c').write_text('other\n')
				with self.assertRaisesRegex(LabError, 'no longer applies'):
					lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				with self.assertRaisesRegex(LabError, 'no lab variant'):
					lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'w')
			finally:
				lab_variants.VARIANT_DIR = old

	def test_every_scenario_names_existing_variants(self) -> None:
		for s in lab_scenarios.SCENARIOS.values():
			for b in (s.build, s.restore):
				if b.patch:
					lab_variants.patch_path(b.patch)
				if b.config:
					lab_guest.read_fragment(
						(lab_variants.config_path(b.config),))


if __name__ == '__main__':
	unittest.main()
