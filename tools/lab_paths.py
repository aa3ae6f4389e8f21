# SPDX-License-Identifier: GPL-2.0
"""Where things live: the repository, the cache tree, build and result dirs."""

import os
from pathlib import Path
from typing import Mapping

# The one environment variable that moves everything the tools write outside
# the repository (kernel tree, build directories).  README documents it.
CACHE_ENV = 'HIBLAB_CACHE_DIR'
PROJECT = 'hibernate-lab'

REPO_ROOT = Path(__file__).resolve().parent.parent


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
	if env.get(CACHE_ENV):
		return Path(env[CACHE_ENV]).expanduser().resolve()
	xdg = env.get('XDG_CACHE_HOME') or str(Path.home() / '.cache')
	return Path(xdg).expanduser().resolve() / PROJECT


def tree_dir(cache: Path) -> Path:
	"""The git tree holding the pristine base and the topic branch."""
	return cache / 'linux'


def build_dir(cache: Path, variant: str) -> Path:
	return cache / 'build' / variant


def results_dir(repo: Path = REPO_ROOT) -> Path:
	return repo / 'results'


def base_pin_file(repo: Path = REPO_ROOT) -> Path:
	return repo / 'linux-base.txt'


def overlay_dir(repo: Path = REPO_ROOT) -> Path:
	return repo / 'branch-overlay'
