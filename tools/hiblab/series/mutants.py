# SPDX-License-Identifier: GPL-2.0
"""Series mutants: a change that makes a series unfit to send, and the
check that must stop the run on it.

mutants/<base>/series/<name>.patch, header lines then, for a commit, a git
diff against the topic branch at that step:

  Inserts-after: NNNN   a commit after this step (the series is the one
                        that holds the step)
  Series: <name>        the series it changes (needed without a commit)
  Requires: <names>     the series declares these prerequisites instead of
                        its own (may be empty: the pristine base alone)
  Stops-at: <check>     series/<series>/<stage>...: the check that must
                        fail and stop the run
  Why: <one line>       the inserted commit's message
"""

import dataclasses
import os
import re
import textwrap
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.verdict import FAIL, PASS, Verdict

@dataclasses.dataclass(frozen=True)
class SeriesMutant:
	"""A change that makes a series unfit to send, and where it stops."""
	name: str
	path: Path
	after: int		# the step the inserted commit follows (0: none)
	stops_at: str
	series: str = ''	# the series it changes ('': the one holding
				# step `after`)
	# The prerequisites the series declares instead of its own (None:
	# its own).
	requires: Optional[Tuple[str, ...]] = None


def parse_series_mutant(path: Path) -> SeriesMutant:
	text = path.read_text()
	head = text.split('\ndiff --git ', 1)[0]
	fields = dict(re.findall(r'^([A-Z][a-z-]+): *(.*)$', head, re.M))
	has_diff = 'diff --git ' in text
	after = fields.get('Inserts-after', '')
	requires = fields.get('Requires')
	if not fields.get('Stops-at') or \
	   (has_diff != bool(re.fullmatch(r'\d{4}', after))) or \
	   (not has_diff and (requires is None or not fields.get('Series'))):
		raise LabError(f'{path}: malformed series mutant', 'it needs '
			       'Stops-at:, and Inserts-after: NNNN with a git '
			       'diff, or Series: and Requires:')
	return SeriesMutant(path.stem, path.resolve(), int(after or 0),
			    fields['Stops-at'], fields.get('Series', ''),
			    tuple(requires.replace(',', ' ').split())
			    if requires is not None else None)


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


def judge_mutant(m: SeriesMutant, got: Sequence[Verdict],
		 stop: str = 'series') -> Verdict:
	"""A series mutant must fail its Stops-at check and stop the run
	(the verdict named `stop`)."""
	failed = [v for v in got if v.status == FAIL]
	# A build's Stops-at may leave out the configuration (build/0002 for
	# build/0002-guest and build/0002-kunit).
	hit = next((v for v in failed if v.name == m.stops_at or
		    v.name.startswith(m.stops_at + '-')), None)
	stopped = any(v.name == stop and 'stopped' in v.detail
		      for v in failed)
	name = f'series-mutant/{m.name}'
	if hit and stopped:
		return Verdict(name, PASS, f'stopped at {hit.name}: {hit.detail}')
	# The run's own reason, e.g. a later patch no longer applying on top
	# of the mutant commit, which no stage names.
	why = next((v.detail for v in failed if v.name == stop), '')
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
