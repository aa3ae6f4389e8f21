# SPDX-License-Identifier: GPL-2.0
"""Room on the cache's disk, checked before make test's first build.

A run that fills the disk fails half an hour in, with ENOSPC from git or ld
in the middle of a series, and takes every other check on that disk down
with it (it did, in CI, on a machine whose disk other work shares).  So
make test first removes the worktrees of the old layout, then compares what
a cold run of its bases leaves in the cache, less what the cache already
holds of them, with the room the disk has, and stops with one line if it
cannot fit.
"""

import fnmatch
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, List

from hiblab import paths
from hiblab.git import Git
from hiblab.verdict import FAIL, PASS, Verdict

GIB = 1 << 30
# What a cold make test leaves in the cache, per base (its tree, its three
# worktrees) and shared (build directories, the fetched 7.3 source,
# ccache), rounded up from a measured cold run: 15.3 GiB in all, 7.5 for
# 7.3, 7.0 for 6.12, 1.2 shared (README's make test entry); and Debian's
# kernels the lab boots, unpacked (1.2 GiB for both bases; the 1.1 GiB
# -dbg package is deleted once its vmlinux is out: the margin).  7.3 adds
# the KUnit gauntlet's second lane (a worktree, ~1.8 GiB) and, shared, its
# build directory and the series' one for stacks far from the topic (~0.3
# each): estimated from those sizes, until a cold run measures them.
COLD_GIB = {'7.3': 10.0, '6.12': 7.5}
SHARED_GIB = 3.4
# Results, temporary files, a warm run's new build objects, and what make
# test-all adds (a build directory per config variant, ~0.3 GiB each).
MARGIN_GIB = 2.0
SHARED_DIRS = ('build', 'bases', 'ccache', 'debian-kernels')
# Worktrees of the layout before one series worktree per base: nothing
# names them any more (each ~1.8 GB; make test made 15 of them).
# (<name>-<base>, as paths.worktree() names them).
RETIRED_WORKTREES = ('series-stack', 'series-*-rehearsal', 'series-*-mutant')


def cold_size(bases: Iterable[str]) -> int:
	"""Bytes a cold run of these bases leaves in the cache."""
	return int((SHARED_GIB + sum(COLD_GIB.get(b, max(COLD_GIB.values()))
				     for b in bases)) * GIB)


def held_paths(cache: Path, bases: Iterable[str]) -> List[Path]:
	"""What the cache holds of these bases and of what they share."""
	held = [cache / d for d in SHARED_DIRS]
	for b in bases:
		held += [paths.tree_dir(cache, b)] + worktrees_of(cache, b)
	return [p for p in held if p.exists()]


def worktrees_of(cache: Path, base: str) -> List[Path]:
	"""The base's worktrees (paths.worktree() names them <name>-<base>)."""
	return sorted((cache / 'worktrees').glob(f'*-{base}'))


def used(where: List[Path]) -> int:
	"""Bytes these paths hold (du's disk usage; 0 for none)."""
	if not where:
		return 0
	out = subprocess.run(['du', '-skc'] + [str(p) for p in where],
			     capture_output=True, text=True,
			     check=False).stdout.split()
	return int(out[-2]) * 1024 if len(out) >= 2 and out[-2].isdigit() \
		else 0


def free(cache: Path) -> int:
	"""Bytes free on the disk that holds (or will hold) the cache."""
	where = cache
	while not where.exists():
		where = where.parent
	return shutil.disk_usage(where).free


def retire_worktrees(cache: Path, bases: Iterable[str]) -> List[str]:
	"""Removes the old layout's worktrees of these bases; their names."""
	gone = []
	for b in bases:
		old = [p for p in worktrees_of(cache, b)
		       if any(fnmatch.fnmatch(p.name, f'{pat}-{b}')
			      for pat in RETIRED_WORKTREES)]
		for p in old:
			shutil.rmtree(p)
			gone.append(p.name)
		if old and paths.tree_dir(cache, b).is_dir():
			Git(paths.tree_dir(cache, b)).run(['worktree', 'prune'])
	return gone


def judge_room(cache: Path, cold: int, held: int, room: int) -> Verdict:
	"""PASS if room (free bytes) holds what a cold run adds to held."""
	need = max(cold - held, 0) + int(MARGIN_GIB * GIB)
	have = f'{room / GIB:.1f} GiB free under {cache}'
	if room >= need:
		return Verdict('disk-room', PASS, f'{have}, this run needs about '
			       f'{need / GIB:.1f}')
	return Verdict('disk-room', FAIL, f'{have}, this run needs about '
		       f'{need / GIB:.1f} (a cold run leaves {cold / GIB:.1f} '
		       f'GiB, the cache holds {held / GIB:.1f} of it): free space '
		       'there, or set HIBLAB_CACHE_DIR to a larger disk')
