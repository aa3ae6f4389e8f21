#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The cache lock."""

import os
import tempfile
import unittest
from pathlib import Path

from hiblab import lock
from hiblab.errors import LabError


class CacheLockTest(unittest.TestCase):
	def test_second_run_is_refused_naming_the_first(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			cache = Path(tmp) / 'cache'
			with lock.CacheLock(cache):
				with self.assertRaisesRegex(LabError, r'in use by PID '
							    f'{os.getpid()}'):
					with lock.CacheLock(cache):
						pass
			with lock.CacheLock(cache):
				pass	# released on exit

	def test_unwritable_cache_is_one_clear_error(self) -> None:
		# A regular file where a directory must be: mkdir fails with
		# ENOTDIR even for root, which ignores modes (CI runs as root).
		with tempfile.TemporaryDirectory() as tmp:
			blocker = Path(tmp) / 'not-a-dir'
			blocker.write_text('a file, not a directory\n')
			with self.assertRaisesRegex(LabError, 'cannot create the '
						    'cache lock .*(Not a directory).*'
						    'HIBLAB_CACHE_DIR'):
				with lock.CacheLock(blocker / 'cache'):
					pass
			self.assertTrue(blocker.is_file())


if __name__ == '__main__':
	unittest.main()
