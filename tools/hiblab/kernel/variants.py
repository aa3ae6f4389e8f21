# SPDX-License-Identifier: GPL-2.0
"""Lab build variants: the tree under test plus a patch from qemu/variants/.

A variant is a change the lab needs in a guest kernel that is not part of
the series, e.g. mainline behaviour the 6.12 base lacks.  It is applied in
a worktree of its own, on top of exactly what the source tree holds
(its commit, uncommitted changes and new files), so a variant of a mutant
carries the mutation too.  The developer's tree is never touched.
"""

import os
import tempfile
from pathlib import Path

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree

VARIANT_DIR = paths.REPO_ROOT / 'qemu' / 'variants'


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


# Variant commits are made by the tools, with a fixed identity and date.
_IDENTITY = {'GIT_AUTHOR_NAME': 'hibernate-lab', 'GIT_AUTHOR_EMAIL':
	     'hibernate-lab@localhost', 'GIT_COMMITTER_NAME': 'hibernate-lab',
	     'GIT_COMMITTER_EMAIL': 'hibernate-lab@localhost',
	     'GIT_AUTHOR_DATE': '2000-01-01T00:00:00Z',
	     'GIT_COMMITTER_DATE': '2000-01-01T00:00:00Z'}


def variant_commit(src: Git, name: str) -> str:
	"""A commit holding the source tree's state with the variant applied,
	built in a private index so nothing in any work tree changes."""
	head = src.text(['rev-parse', 'HEAD'])
	with tempfile.TemporaryDirectory() as tmp:
		env = dict(_IDENTITY, GIT_INDEX_FILE=str(Path(tmp) / 'index'))
		src.run(['read-tree', head], env=env)
		local = src.run(['diff', '--binary', 'HEAD'])
		if local.strip():
			src.run(['apply', '--cached', '--binary', '-'], stdin=local,
				env=env)
		for rel in src.text(['ls-files', '--others', '--exclude-standard',
				     '-z']).split('\0'):
			if rel:
				blob = src.text(['hash-object', '-w', '--', rel])
				mode = '100755' if os.access(src.worktree / rel,
							     os.X_OK) else '100644'
				src.run(['update-index', '--add', '--cacheinfo',
					 f'{mode},{blob},{rel}'], env=env)
		try:
			src.run(['apply', '--cached', str(patch_path(name))],
				env=env)
		except LabError as e:
			raise LabError(f'lab variant {name} no longer applies to '
				       f'{src.worktree} ({e})', f'regenerate '
				       f'{patch_path(name)} against the series') from e
		tree = src.text(['write-tree'], env=env)
	return src.text(['commit-tree', tree, '-p', head, '-m',
			 f'hibernate-lab variant {name}'], env=_IDENTITY)


def variant_tree(source: Path, cache: Path, base: str, name: str) -> Path:
	"""A worktree holding `source` with variant `name` applied.

	Going from one variant commit to the next checks out only the files
	that differ, so a variant touching a widely included header does not
	rebuild the kernel every time it is prepared.
	"""
	src = Git(source)
	commit = variant_commit(src, name)
	worktree = paths.worktree(cache, base, f'variant-{name}')
	prepare_worktree(src, worktree, commit)
	return worktree
