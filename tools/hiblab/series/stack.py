# SPDX-License-Identifier: GPL-2.0
"""A series on its own: the pristine base, its prerequisites' patches and
its own, each applied with `git am` as a maintainer applies mails, with
nothing else of the topic under it.

The patches are the topic's commits of each step (`git format-patch`); the
stack is built in the worktree of the round trip (worktrees/series-am-<base>),
with a fixed committer, so the same overlay gives the same commits.  A
patch that does not apply stops the series: it needs a step it does not
declare (or the steps are in an order that does not apply).
"""

import dataclasses
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.series.catalog import SeriesDef, prerequisites

# Who applied the patches of a stack, and when: fixed, so that the stack's
# commit ids depend on the patches alone.
_APPLIER = {'GIT_COMMITTER_NAME': 'hibernate-lab stack',
	    'GIT_COMMITTER_EMAIL': 'stack@hibernate-lab.invalid',
	    'GIT_COMMITTER_DATE': '2000-01-01T00:00:00Z'}


@dataclasses.dataclass(frozen=True)
class Stack:
	"""Where a series stands: fork is the pristine base with its
	prerequisites applied, tip that plus its own patches."""
	pristine: str
	fork: str
	tip: str
	# The prerequisites' patches as git patch-id --stable gives them, in
	# the order they apply (prerequisite-patch-id: in the cover letter).
	prerequisite_ids: Tuple[str, ...] = ()
	prerequisites: Tuple[str, ...] = ()	# their series' names


def step_commits(tree: Git, pristine: str, topic: str) -> Dict[int, str]:
	"""Step number -> the topic's commit of that step."""
	commits = tree.text(['rev-list', '--reverse', f'{pristine}..{topic}'])
	return {n: c for n, c in enumerate(commits.split(), 1)}


def patch_of(tree: Git, commit: str) -> bytes:
	return tree.run(['format-patch', '-1', '--stdout', '--no-signature',
			 commit])


def patch_id(tree: Git, patch: bytes) -> str:
	out = tree.run(['patch-id', '--stable'], stdin=patch).decode()
	return out.split()[0] if out.strip() else ''


def am(wt: Git, patch: bytes, what: str) -> None:
	"""git am of one patch, as a maintainer applies a mail; a patch that
	does not apply is aborted and named."""
	proc = wt.attempt(['am', '-q', '--keep-cr'], env=_APPLIER, stdin=patch)
	if proc.returncode != 0:
		wt.run(['am', '--abort'], check=False)
		said = proc.stderr.decode(errors='replace').splitlines() + \
			proc.stdout.decode(errors='replace').splitlines()
		first = next((l.strip() for l in said if 'patch failed' in l or
			      'does not apply' in l or 'error:' in l),
			     said[0].strip() if said else f'exit {proc.returncode}')
		raise LabError(f'{what} does not apply: {first}')


def build_stack(tree: Git, cache: Path, base_name: str, pristine: str,
		topic: str, s: SeriesDef, catalog: Sequence[SeriesDef],
		requires: Optional[Sequence[str]] = None) -> Stack:
	"""The series applied on the pristine base and its prerequisites
	(requires, when given, instead of the series' own Requires:)."""
	if requires is not None:
		s = dataclasses.replace(s, requires=tuple(requires))
		catalog = [s if x.name == s.name else x for x in catalog]
	commits = step_commits(tree, pristine, topic)
	wt = prepare_worktree(tree, paths.worktree(cache, base_name,
						   paths.SERIES_AM), pristine)
	ids: List[str] = []
	before = prerequisites(s, catalog)
	for p in before:
		for n in p.steps:
			patch = patch_of(tree, commits[n])
			ids.append(patch_id(tree, patch))
			am(wt, patch, f'step {n:04d} of {p.name} (a prerequisite)')
	fork = wt.text(['rev-parse', 'HEAD'])
	for n in s.steps:
		am(wt, patch_of(tree, commits[n]), f'step {n:04d} of {s.name} on '
		   f'{" + ".join(["the base"] + [p.name for p in before])}')
	return Stack(pristine, fork, wt.text(['rev-parse', 'HEAD']), tuple(ids),
		     tuple(p.name for p in before))
