#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The overlay: export, rebuild, refusals, on a tiny fake base."""

import unittest
from unittest import mock

from hiblab import paths
from hiblab.base import kernel_tree, overlay, pins
from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.testing import (AUTHOR, FakeBase, LabTestCase, commit_in_tree,
			    installed_ok, quiet)


class OverlayTest(LabTestCase):
	def edit_and_commit(self, git: Git) -> None:
		"""Two commits that modify, add (with mode), and delete."""
		tree = self.fake.tree
		(tree / 'arch/x86/mm/ident_map.c').write_text('int ident2;\n')
		(tree / 'arch/x86/mm/ident_map_kunit.c').write_text('int t;\n')
		commit_in_tree(git, 'x86/mm/ident_map: Add a test\n\nWhy.\n\n'
			       'Signed-off-by: Test Dev <dev@example.org>\n',
			       '2026-12-01T10:00:00+01:00')
		(tree / 'kernel/power/old.c').unlink()
		script = tree / 'scripts/run.sh'
		script.write_text('#!/bin/sh\n')
		script.chmod(0o755)
		commit_in_tree(git, 'PM: hibernate: Drop old.c\n\nBecause.\n',
			       '2026-12-02T10:00:00+00:00')

	def test_empty_series_is_the_base(self) -> None:
		tree = self.fake.build()
		self.assertEqual(tree.git.rev('topic'), tree.base)
		self.assertEqual(tree.git.text(['symbolic-ref', 'HEAD']),
				 'refs/heads/topic')

	def test_export_then_rebuild_gives_the_same_tree(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		dev_tree = git.tree_of('topic')
		overlay_dir = paths.overlay_dir(self.fake.repo, 'fake')
		(overlay_dir / 'cover-letter.txt').write_text('cover\n')
		self.assertEqual(overlay.export_topic(
			git, git.rev('base/6.0.1'), overlay_dir, quiet), 2)
		steps = sorted(p.name for p in overlay_dir.iterdir())
		self.assertEqual(steps, ['0001-x86-mm-ident-map-add-a-test',
					 '0002-pm-hibernate-drop-old-c',
					 'cover-letter.txt'])
		manifest = (overlay_dir / steps[1] / 'manifest').read_text()
		self.assertIn('A 100755 - scripts/run.sh', manifest)
		self.assertRegex(manifest, r'D - [0-9a-f]{40} kernel/power/old.c')
		first = self.fake.build().git.rev('topic')
		self.assertEqual(git.tree_of('topic'), dev_tree)
		self.assertEqual(self.fake.build().git.rev('topic'), first)
		log = git.text(['log', '--format=%an|%aI|%cI|%s', 'topic', '-2'])
		self.assertEqual(log.splitlines()[1], 'Test Dev|'
				 '2026-12-01T10:00:00+01:00|'
				 '2026-12-01T10:00:00+01:00|'
				 'x86/mm/ident_map: Add a test')
		body = git.text(['log', '-1', '--format=%B', 'topic~1'])
		self.assertTrue(body.endswith('Signed-off-by: Test Dev '
					      '<dev@example.org>'))

	def test_commit_ids_do_not_depend_on_the_machine(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		overlay.export_topic(git, git.rev('base/6.0.1'),
					 paths.overlay_dir(self.fake.repo, 'fake'), quiet)
		first = self.fake.build().git.rev('topic')
		other = FakeBase(self.root / 'second')
		other_overlay = paths.overlay_dir(other.repo, 'fake')
		other_overlay.rmdir()
		paths.overlay_dir(self.fake.repo, 'fake').rename(other_overlay)
		self.assertEqual(other.build().git.rev('topic'), first)

	def test_rebuild_leaves_unchanged_files_alone(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		overlay.export_topic(git, git.rev('base/6.0.1'),
					 paths.overlay_dir(self.fake.repo, 'fake'), quiet)
		path = self.fake.tree / 'arch/x86/mm/ident_map.c'
		before = path.stat().st_mtime_ns
		self.fake.build()
		self.assertEqual(path.stat().st_mtime_ns, before)

	def test_dirty_tree_is_refused_and_kept(self) -> None:
		git = self.fake.build().git
		edited = self.fake.tree / 'Makefile'
		edited.write_text('work in progress\n')
		with self.assertRaisesRegex(LabError, 'uncommitted changes: '
					    'Makefile'):
			self.fake.build()
		self.assertEqual(edited.read_text(), 'work in progress\n')
		self.fake.build(force=True)
		self.assertEqual(edited.read_text(), 'VERSION = 6\n')
		self.assertFalse(git.dirty_paths())

	def test_unexported_commit_is_refused_and_kept(self) -> None:
		git = self.fake.build().git
		(self.fake.tree / 'Makefile').write_text('VERSION = 8\n')
		mine = commit_in_tree(git, 'mine\n', '2026-12-01T00:00:00+00:00')
		with self.assertRaisesRegex(LabError, r'1 commit\(s\) not exported'):
			self.fake.build()
		self.assertEqual(git.rev('topic'), mine)
		with self.assertRaisesRegex(LabError, 'not exported'):
			with mock.patch.object(pins, 'dpkg_version',
					       installed_ok):
				kernel_tree.build_topic(self.fake.request(), quiet)
		with mock.patch.object(pins, 'dpkg_version', installed_ok):
			tree = kernel_tree.ensure_topic(self.fake.request(), quiet)
		self.assertEqual(tree.git.rev('topic'), mine)

	def test_step_that_no_longer_applies_leaves_the_tree(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		overlay_dir = paths.overlay_dir(self.fake.repo, 'fake')
		overlay.export_topic(git, git.rev('base/6.0.1'), overlay_dir, quiet)
		good = self.fake.build().git.rev('topic')
		manifest = next(overlay_dir.glob('0001-*')) / 'manifest'
		text = manifest.read_text()
		pre = text.split()[2]
		manifest.write_text(text.replace(pre, 'f' * 40))
		with self.assertRaisesRegex(LabError, 'step 0001-x86-mm-ident-map-'
					    'add-a-test no longer applies: '
					    'arch/x86/mm/ident_map.c is blob'):
			self.fake.build()
		self.assertEqual(git.rev('topic'), good)
		self.assertFalse(git.dirty_paths())
		manifest.write_text('A 100644 - Makefile\n')
		with self.assertRaisesRegex(LabError, 'adds Makefile, which the '
					    'tree already has'):
			self.fake.build()

	def test_malformed_overlay_is_named(self) -> None:
		overlay_dir = paths.overlay_dir(self.fake.repo, 'fake')
		step = overlay_dir / '0002-gap'
		step.mkdir()
		(step / 'commit.txt').write_text(f'Author: {AUTHOR}\nDate: '
						 '2026-01-01T00:00:00Z\n\nmsg\n')
		(step / 'manifest').write_text('')
		with self.assertRaisesRegex(LabError, 'numbered'):
			overlay.read_steps(overlay_dir)
		step.rename(overlay_dir / '0001-ok')
		(overlay_dir / '0001-ok' / 'manifest').write_text('X 1 2 path\n')
		with self.assertRaisesRegex(LabError, 'manifest:1: bad line'):
			overlay.read_steps(overlay_dir)
		(overlay_dir / '0001-ok' / 'commit.txt').write_text('msg only\n')
		with self.assertRaisesRegex(LabError, 'commit.txt: malformed'):
			overlay.read_steps(overlay_dir)

	def test_slug(self) -> None:
		self.assertEqual(overlay.slug('x86/power/64: Fix it!'),
				 'x86-power-64-fix-it')
		self.assertLessEqual(len(overlay.slug('a' * 200)), 52)


if __name__ == '__main__':
	unittest.main()
