# SPDX-License-Identifier: GPL-2.0
"""Where things live: the repository, the cache tree, build and result dirs."""

import os
import time
from pathlib import Path
from typing import Mapping

from hiblab.errors import LabError

# The one environment variable that moves everything the tools write outside
# the repository (kernel tree, build directories).  README documents it.
CACHE_ENV = 'HIBLAB_CACHE_DIR'
PROJECT = 'hibernate-lab'

REPO_ROOT = Path(__file__).resolve().parents[2]
# tools/: the entry points, and the package lists make setup installs.
TOOLS_DIR = REPO_ROOT / 'tools'


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
	if env.get(CACHE_ENV):
		return Path(env[CACHE_ENV]).expanduser().resolve()
	xdg = env.get('XDG_CACHE_HOME') or str(Path.home() / '.cache')
	return Path(xdg).expanduser().resolve() / PROJECT


def tree_dir(cache: Path, base: str) -> Path:
	"""The git tree holding a base's pristine import and topic branch."""
	return cache / f'linux-{base}'


def build_dir(cache: Path, variant: str) -> Path:
	return cache / 'build' / variant


def series_memo_dir(cache: Path) -> Path:
	"""The per-commit builds that passed (series/builds.py, BuildMemo)."""
	return build_dir(cache, 'series-memo')


# make test's checks, every mutant and every commit of make series build in
# one scratch worktree of the tree, each config in one build directory:
# cold, that is one KUnit and one guest build for all of them, and the user's
# own tree and its build directories are never touched.
CHECK_VARIANT = 'check'
# The series' commits far from the topic (series.builds.series_variant()).
SERIES_VARIANT = 'series'


def check_worktree(cache: Path, base: str) -> Path:
	return cache / 'worktrees' / f'{CHECK_VARIANT}-{base}'


# The series stage's worktrees that hold nothing to keep: git am onto the
# pristine base (each series' stack, then its mails' round trip), and the b4
# branches of mails not for sending (make test's rehearsals, the series
# mutants).  Runs take turns under the lock, and going from one branch to
# the next checks out only the files that differ, so one of each per base
# does for every series (a worktree is ~1.8 GB of kernel sources: one per
# series and mutant filled the disk of a machine CI shares).
SERIES_AM = 'series-am'
SERIES_SCRATCH = 'series-scratch'


def worktree(cache: Path, base: str, name: str) -> Path:
	"""A scratch worktree of a base's tree (series, variants, ...)."""
	return cache / 'worktrees' / f'{name}-{base}'


def results_dir(repo: Path = REPO_ROOT) -> Path:
	return repo / 'results'


def run_dir(kind: str, repo: Path = REPO_ROOT) -> Path:
	"""results/<kind>-<time>/, created; LabError if it cannot be written."""
	path = results_dir(repo) / time.strftime(f'{kind}-%Y%m%d-%H%M%S')
	try:
		path.mkdir(parents=True, exist_ok=True)
	except OSError as e:
		raise LabError(f'cannot create the results directory {path} '
			       f'({e.strerror})', 'make results/ writable, or '
			       'work in a writable clone') from e
	if not os.access(path, os.W_OK):
		raise LabError(f'the results directory {path} is not writable',
			       'make results/ writable, or work in a writable '
			       'clone')
	return path


def base_pin_file(repo: Path = REPO_ROOT) -> Path:
	return repo / 'linux-base.txt'


def overlay_dir(repo: Path, base: str) -> Path:
	"""A base's series: branch-overlay/<base>/NNNN-*/ and its cover letter."""
	return repo / 'branch-overlay' / base


def mutant_dir(repo: Path, base: str) -> Path:
	"""A base's mutants (diffs against its topic branch); series/ below."""
	return repo / 'mutants' / base
