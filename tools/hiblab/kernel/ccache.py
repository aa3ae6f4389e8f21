# SPDX-License-Identifier: GPL-2.0
"""ccache for every kernel build the tools run.

The compiler is `ccache gcc` (make's CC=), its cache under the cache
directory (<cache>/ccache, capped at MAX_SIZE), so that a build directory
that goes back to sources it compiled before (the gauntlet reverting one
mutant before applying the next, the series builds moving from commit to
commit, a topic changed by one line) gets those objects back instead of
compiling them again.  A build prints its own hit rate: the difference of
ccache's counters before and after it (one run at a time holds the cache
lock, so nothing else counts in between).
"""

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

# Enough for every configuration of both bases (a guest build's objects
# are ~150 MB; the variants and W=1 builds of each base add to that).
MAX_SIZE = '6G'


def available() -> bool:
	return shutil.which('ccache') is not None


def directory(cache: Path) -> Path:
	return cache / 'ccache'


def env(cache: Path) -> Dict[str, str]:
	"""The environment of a build and of the ccache commands.

	Not depend mode (CCACHE_DEPEND), although it makes a cold build about
	a quarter faster: with it, ccache 4.7.5 handed the gauntlet objects of
	the wrong source (four mutants survived, their kernels unmutated),
	and a later build on that cache got a mutant's object (the smoke
	cycle reset at the jump into the image).  See README's make test."""
	return dict(os.environ, CCACHE_DIR=str(directory(cache)),
		    CCACHE_MAXSIZE=MAX_SIZE)


def make_args() -> List[str]:
	"""make's arguments that compile through ccache (none without it:
	the build is the same, only slower)."""
	return ['CC=ccache gcc'] if available() else []


@dataclasses.dataclass(frozen=True)
class Stats:
	hits: int = 0
	misses: int = 0

	def __sub__(self, other: 'Stats') -> 'Stats':
		return Stats(self.hits - other.hits, self.misses - other.misses)

	def line(self) -> str:
		"""'ccache: 1210 hits, 12 misses (99%)'"""
		total = self.hits + self.misses
		if not total:
			return 'ccache: nothing compiled'
		return f'ccache: {self.hits} hits, {self.misses} misses ' \
			f'({100 * self.hits // total}%)'


def parse_stats(text: str) -> Stats:
	"""`ccache --print-stats` (key<TAB>value lines) as hits and misses."""
	values = {}
	for line in text.splitlines():
		key, _, value = line.partition('\t')
		if value.strip().isdigit():
			values[key] = int(value)
	return Stats(values.get('direct_cache_hit', 0) +
		     values.get('preprocessed_cache_hit', 0),
		     values.get('cache_miss', 0))


def stats(cache: Path) -> Stats:
	"""The counters now (zero without ccache)."""
	if not available():
		return Stats()
	proc = subprocess.run(['ccache', '--print-stats'], env=env(cache),
			      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
			      check=False)
	return parse_stats(proc.stdout.decode(errors='replace'))


def summary(cache: Path) -> str:
	"""`ccache --show-stats` of the whole cache, for the run's notes."""
	if not available():
		return 'ccache is not installed: builds compile everything'
	proc = subprocess.run(['ccache', '--show-stats'], env=env(cache),
			      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
			      check=False)
	return proc.stdout.decode(errors='replace')
