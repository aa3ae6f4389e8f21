# SPDX-License-Identifier: GPL-2.0
"""ccache for every kernel build the tools run.

The compiler is `ccache gcc` (make's CC=), its cache under the cache
directory (<cache>/ccache, capped at MAX_SIZE), so that a build directory
that goes back to sources it compiled before (the gauntlet reverting one
mutant before applying the next, the series builds moving from commit to
commit, a topic changed by one line) gets those objects back instead of
compiling them again.  A build prints its own hit rate, read from its own
stats log (CCACHE_STATSLOG, a file in its build directory): make test builds
its bases side by side, and ccache's global counters would count the other
base's compiles too.
"""

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

# Enough for every configuration of both bases (a guest build's objects
# are ~150 MB; the variants and W=1 builds of each base add to that).
MAX_SIZE = '6G'


def available() -> bool:
	return shutil.which('ccache') is not None


def directory(cache: Path) -> Path:
	return cache / 'ccache'


def env(cache: Path, stats_log: Optional[Path] = None) -> Dict[str, str]:
	"""The environment of a build and of the ccache commands.

	Not depend mode (CCACHE_DEPEND), although it makes a cold build about
	a quarter faster: with it, ccache 4.7.5 handed the gauntlet objects of
	the wrong source (four mutants survived, their kernels unmutated),
	and a later build on that cache got a mutant's object (the smoke
	cycle reset at the jump into the image).  See README's make test."""
	e = dict(os.environ, CCACHE_DIR=str(directory(cache)),
		 CCACHE_MAXSIZE=MAX_SIZE)
	if stats_log:
		e['CCACHE_STATSLOG'] = str(stats_log)
	return e


def make_args() -> List[str]:
	"""make's arguments that compile through ccache (none without it:
	the build is the same, only slower)."""
	return ['CC=ccache gcc'] if available() else []


@dataclasses.dataclass(frozen=True)
class Stats:
	hits: int = 0
	misses: int = 0

	def line(self) -> str:
		"""'ccache: 1210 hits, 12 misses (99%)'"""
		total = self.hits + self.misses
		if not total:
			return 'ccache: nothing compiled'
		return f'ccache: {self.hits} hits, {self.misses} misses ' \
			f'({100 * self.hits // total}%)'


def parse_stats_log(text: str) -> Stats:
	"""A stats log (stats_log, ccache 4.4 and later): per compilation a
	'# <source>' line, then one line per counter it bumped."""
	counters = [l.strip() for l in text.splitlines()]
	return Stats(counters.count('direct_cache_hit') +
		     counters.count('preprocessed_cache_hit'),
		     counters.count('cache_miss'))


def stats_log(build: Path) -> Path:
	"""Where the builds in a build directory log ccache's counters; a
	build empties it first (start_stats())."""
	return build / 'hiblab-ccache-stats.log'


def start_stats(build: Path) -> None:
	stats_log(build).write_text('')


def build_stats(build: Path) -> Stats:
	"""What the builds in build compiled since start_stats()."""
	try:
		return parse_stats_log(stats_log(build).read_text())
	except FileNotFoundError:
		return Stats()


def summary(cache: Path) -> str:
	"""`ccache --show-stats` of the whole cache, for the run's notes."""
	if not available():
		return 'ccache is not installed: builds compile everything'
	proc = subprocess.run(['ccache', '--show-stats'], env=env(cache),
			      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
			      check=False)
	return proc.stdout.decode(errors='replace')
