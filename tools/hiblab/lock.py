# SPDX-License-Identifier: GPL-2.0
"""One run at a time per cache directory.

Two runs sharing a cache would check out different commits in the same
worktrees, build into the same directories and boot from the same disk
images, and each would report the other's damage as a verdict.  Every tool
that writes to the cache holds an exclusive flock on <cache>/lock for its
whole run; a second one stops at once, naming the holder.  The kernel
drops the lock when the holder exits, however it exits.
"""

import fcntl
import os
import sys
from pathlib import Path
from typing import IO, Optional

from hiblab.errors import LabError

LOCK_NAME = 'lock'


class CacheLock:
	def __init__(self, cache: Path) -> None:
		self.path = cache / LOCK_NAME
		self.file: Optional[IO[str]] = None

	def __enter__(self) -> 'CacheLock':
		try:
			self.path.parent.mkdir(parents=True, exist_ok=True)
			f = self.path.open('a+')
		except OSError as e:
			raise LabError(f'cannot create the cache lock {self.path} '
				       f'({e.strerror})', f'make {self.path.parent} '
				       'writable or set HIBLAB_CACHE_DIR to a '
				       'writable directory') from e
		try:
			fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
		except BlockingIOError:
			f.seek(0)
			holder = f.read().strip() or 'another run'
			f.close()
			raise LabError(f'the cache {self.path.parent} is in use by '
				       f'{holder}', 'wait for it to finish, or set '
				       'HIBLAB_CACHE_DIR to another directory')
		f.seek(0)
		f.truncate()
		f.write(f'PID {os.getpid()} ({" ".join(sys.argv)})\n')
		f.flush()
		self.file = f
		return self

	def __exit__(self, *exc: object) -> None:
		if self.file:
			self.file.truncate(0)
			self.file.close()
			self.file = None
