# SPDX-License-Identifier: GPL-2.0
"""Series mutants: a commit inserted into the series that makes it unfit to
send, and the check that must stop the run on it."""

import dataclasses
import os
import re
import textwrap
from pathlib import Path
from typing import List, Sequence, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.verdict import FAIL, PASS, Verdict

@dataclasses.dataclass(frozen=True)
class SeriesMutant:
	"""A change that makes the series unfit to send, and where it stops.

	mutants/series/<name>.patch: 'Inserts-after: NNNN' (a step number,
	the new commit follows that step), 'Stops-at: <check>', then a git
	diff against the topic branch at that step.
	"""
	name: str
	path: Path
	after: int
	stops_at: str


def parse_series_mutant(path: Path) -> SeriesMutant:
	text = path.read_text()
	head = text.split('\ndiff --git ', 1)[0]
	fields = dict(re.findall(r'^([A-Z][a-z-]+): *(.*)$', head, re.M))
	if 'diff --git ' not in text or not fields.get('Stops-at') or \
	   not re.fullmatch(r'\d{4}', fields.get('Inserts-after', '')):
		raise LabError(f'{path}: malformed series mutant', 'it needs '
			       'Inserts-after: NNNN and Stops-at: lines, then a '
			       'git diff')
	return SeriesMutant(path.stem, path.resolve(), int(fields['Inserts-after']),
			    fields['Stops-at'])


def mutant_commit_message(m: SeriesMutant, text: str,
			  author: Tuple[str, str]) -> str:
	"""The mutant commit's message, from the patch's Why: line (text)."""
	why = textwrap.fill(re.search(r'^Why: *(.*)$', text, re.M)[1], 72)
	return f'x86/power: Series mutant {m.name}\n\n{why}\n\n' \
		f'Signed-off-by: {author[0]} <{author[1]}>'


def read_series_mutants(repo: Path, base: str) -> List[SeriesMutant]:
	"""mutants/<base>/series/*.patch"""
	return [parse_series_mutant(p) for p in sorted(
		(paths.mutant_dir(repo, base) / 'series').glob('*.patch'))]


def judge_mutant(m: SeriesMutant, got: Sequence[Verdict]) -> Verdict:
	"""A series mutant must fail its Stops-at check and stop the run."""
	failed = [v for v in got if v.status == FAIL]
	hit = next((v for v in failed if v.name == m.stops_at), None)
	stopped = any(v.name == 'series' and 'stopped' in v.detail
		      for v in failed)
	name = f'series-mutant/{m.name}'
	if hit and stopped:
		return Verdict(name, PASS, f'stopped at {hit.name}: {hit.detail}')
	# The run's own reason, e.g. a later patch no longer applying on top
	# of the mutant commit, which no stage names.
	why = next((v.detail for v in failed if v.name == 'series'), '')
	return Verdict(name, FAIL, f'expected a stop at {m.stops_at}; failed: ' +
		       (', '.join(v.name for v in failed) or 'nothing') +
		       (f' ({why})' if why else ''))


def insert_mutant(wt: Git, commits: Sequence[str], m: SeriesMutant,
		  sender: Tuple[str, str]) -> None:
	"""Rebuilds the series (commits, base first) in wt with the mutant's
	commit after its step, as the sender."""
	if not 1 <= m.after <= len(commits):
		raise LabError(f'{m.path.name}: no step {m.after:04d} in a '
			       f'series of {len(commits)}')
	env = dict(os.environ, GIT_AUTHOR_NAME=sender[0],
		   GIT_AUTHOR_EMAIL=sender[1], GIT_COMMITTER_NAME=sender[0],
		   GIT_COMMITTER_EMAIL=sender[1])
	wt.run(['reset', '-q', '--hard', commits[m.after - 1]])
	try:
		wt.run(['apply', '--index', str(m.path)])
	except LabError as e:
		raise LabError(f'series mutant {m.name} does not apply after '
			       f'step {m.after:04d} ({e})') from e
	wt.run(['commit', '-q', '-m', mutant_commit_message(
		m, m.path.read_text(), sender)], env=env)
	for c in commits[m.after:]:
		wt.run(['cherry-pick', '--allow-empty', c], env=env)
