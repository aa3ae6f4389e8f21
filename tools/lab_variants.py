# SPDX-License-Identifier: GPL-2.0
"""Lab build variants: the tree under test plus a patch from qemu/variants/.

A variant is a change the lab needs in a guest kernel that is not part of
the series, e.g. mainline behaviour the 6.12 base lacks.  It is applied in
a worktree of its own, on top of exactly what the source tree holds
(its commit, uncommitted changes and new files), so a variant of a mutant
carries the mutation too.  The developer's tree is never touched.
"""

import shutil
from pathlib import Path

from lab_errors import LabError
from lab_git import Git, prepare_worktree
import lab_paths

VARIANT_DIR = lab_paths.REPO_ROOT / 'qemu' / 'variants'


def patch_path(name: str) -> Path:
	path = VARIANT_DIR / f'{name}.patch'
	if not path.is_file():
		raise LabError(f'no lab variant {name}', f'expected {path}')
	return path


def config_path(name: str) -> Path:
	path = VARIANT_DIR / f'{name}.config'
	if not path.is_file():
		raise LabError(f'no lab config fragment {name}', f'expected {path}')
	return path


def variant_tree(source: Path, cache: Path, name: str) -> Path:
	"""A worktree holding `source` with variant `name` applied."""
	src = Git(source)
	worktree = cache / 'worktrees' / f'variant-{name}'
	wt = prepare_worktree(src, worktree, src.text(['rev-parse', 'HEAD']))
	local = src.run(['diff', '--binary', 'HEAD'])
	if local.strip():
		wt.run(['apply', '--binary', '-'], stdin=local)
	for rel in src.text(['ls-files', '--others', '--exclude-standard',
			     '-z']).split('\0'):
		if rel:
			(worktree / rel).parent.mkdir(parents=True, exist_ok=True)
			shutil.copy2(source / rel, worktree / rel)
	try:
		wt.run(['apply', str(patch_path(name))])
	except LabError as e:
		raise LabError(f'lab variant {name} no longer applies to '
			       f'{source} ({e})', f'regenerate '
			       f'{patch_path(name)} against the series') from e
	return worktree
