#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where things go: cache, results, per-base paths."""

import tempfile
import unittest
from pathlib import Path

from hiblab import paths
from hiblab.errors import LabError


class PathsTest(unittest.TestCase):
	def test_cache_dir_override_and_xdg(self) -> None:
		self.assertEqual(paths.cache_dir({'HIBLAB_CACHE_DIR': '/x/y'}),
				 Path('/x/y'))
		self.assertEqual(paths.cache_dir({'XDG_CACHE_HOME': '/c'}),
				 Path('/c/hibernate-lab'))

class RunDirTest(unittest.TestCase):
	def test_unwritable_results_is_one_clear_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = Path(tmp)
			(repo / 'results').write_text('a file, not a directory')
			with self.assertRaisesRegex(LabError, 'cannot create the '
						    'results directory'):
				paths.run_dir('lab', repo)
			(repo / 'results').unlink()
			self.assertTrue(paths.run_dir('lab', repo).is_dir())


if __name__ == '__main__':
	unittest.main()
