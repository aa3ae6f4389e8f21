# SPDX-License-Identifier: GPL-2.0
"""Room on the cache's disk, checked before make test's first build.

A run that fills the disk fails half an hour in, with ENOSPC from git or ld
in the middle of a series, and takes every other check on that disk down
with it (it did, in CI, on a machine whose disk other work shares).  So
make test first compares what a cold run leaves in the cache, less what the
cache already holds, with the room the disk has, and stops with one line
if it cannot fit.
"""

import shutil
import subprocess
from pathlib import Path
from typing import Iterable

from hiblab.verdict import FAIL, PASS, Verdict

GIB = 1 << 30
# What a cold make test leaves in the cache, per base (its tree, its three
# worktrees, its build directories) and shared (the fetched 7.3 source,
# ccache), rounded up from a measured cold run: 15.3 GiB in all, 8.1 for
# 7.3, 7.2 for 6.12 (README's make test entry).
COLD_GIB = {'7.3': 8.5, '6.12': 7.5}
SHARED_GIB = 0.5
# Results, temporary files and a warm run's new build objects.
MARGIN_GIB = 2.0


def cold_size(bases: Iterable[str]) -> int:
	"""Bytes a cold run of these bases leaves in the cache."""
	return int((SHARED_GIB + sum(COLD_GIB.get(b, max(COLD_GIB.values()))
				     for b in bases)) * GIB)


def used(cache: Path) -> int:
	"""Bytes the cache holds now (du's disk usage; 0 if it is new)."""
	if not cache.exists():
		return 0
	out = subprocess.run(['du', '-sk', str(cache)], capture_output=True,
			     text=True, check=False).stdout.split()
	return int(out[0]) * 1024 if out and out[0].isdigit() else 0


def free(cache: Path) -> int:
	"""Bytes free on the disk that holds (or will hold) the cache."""
	where = cache
	while not where.exists():
		where = where.parent
	return shutil.disk_usage(where).free


def judge_room(cache: Path, cold: int, held: int, room: int) -> Verdict:
	"""PASS if room (free bytes) holds what a cold run adds to held."""
	need = max(cold - held, 0) + int(MARGIN_GIB * GIB)
	have = f'{room / GIB:.1f} GiB free under {cache}'
	if room >= need:
		return Verdict('disk-room', PASS, f'{have}, this run needs about '
			       f'{need / GIB:.1f}')
	return Verdict('disk-room', FAIL, f'{have}, this run needs about '
		       f'{need / GIB:.1f} (a cold run leaves {cold / GIB:.1f} '
		       f'GiB, the cache holds {held / GIB:.1f}): free space '
		       'there, or set HIBLAB_CACHE_DIR to a larger disk')
