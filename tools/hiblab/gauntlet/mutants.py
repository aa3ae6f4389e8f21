# SPDX-License-Identifier: GPL-2.0
"""Mutants: small patches that revive a known bug, and which checks kill them.

A mutant is mutants/<base>/<name>.patch: header lines, then a git diff
against that base's topic branch (the code differs between bases).

  Revives: <one line: the bug, and the commit that fixed it>
  Killed-by: <check> [<check> ...]
  Build-error: <regex>	(only with Killed-by: build)

Killed-by: build is for a fact the kernel checks at compile time (a
static_assert()): the mutant is killed when the KUnit kernel fails to
build and its build log matches Build-error:, so an unrelated compile
error does not count.

Mutants are applied in a git worktree of their own (never the developer's
tree) and built in one build directory per configuration, so going from
one mutant to the next rebuilds only the files the two patches touch;
gauntlet.run runs them.
"""

import dataclasses
import re
from pathlib import Path
from typing import List, Tuple

from hiblab.errors import LabError
from hiblab.gauntlet import checknames
from hiblab.git import Git
from hiblab.lab import scenarios
from hiblab.verdict import FAIL, PASS, Verdict

BUILD_CHECK = 'build'

@dataclasses.dataclass(frozen=True)
class Mutant:
	name: str
	path: Path
	revives: str
	killed_by: Tuple[str, ...]
	build_error: str = ''	# regex the failed build's log must match


def parse_mutant(path: Path) -> Mutant:
	text = path.read_text()
	head = text.split('\ndiff --git ', 1)[0]
	fields = dict(re.findall(r'^([A-Z][a-z-]+): *(.*)$', head, re.M))
	if 'diff --git ' not in text or not fields.get('Revives') or \
	   not fields.get('Killed-by'):
		raise LabError(f'{path}: malformed mutant', 'it needs Revives: and '
			       'Killed-by: lines followed by a git diff')
	killed_by = tuple(fields['Killed-by'].split())
	build_error = fields.get('Build-error', '')
	if (BUILD_CHECK in killed_by) != bool(build_error):
		raise LabError(f'{path}: Killed-by: {BUILD_CHECK} and Build-error: '
			       'go together', 'name the compile error a build '
			       'kill must show, or drop the build kill')
	try:
		re.compile(build_error)
	except re.error as e:
		raise LabError(f'{path}: Build-error: is not a regex ({e})',
			       'write a Python regular expression') from e
	return Mutant(path.stem, path, fields['Revives'], killed_by,
		      build_error)


def judge_build_failure(m: Mutant, log: str) -> Verdict:
	"""The check `build` for a mutant whose KUnit kernel did not build:
	FAIL (the mutant is caught) when the log shows the expected error."""
	if m.build_error:
		for line in log.splitlines():
			if re.search(m.build_error, line):
				return Verdict(BUILD_CHECK, FAIL, line.strip())
	return Verdict(BUILD_CHECK, PASS, 'no line of the build log matches '
		       f'{m.build_error!r}' if m.build_error else
		       'the mutant names no Build-error:')


def read_mutants(directory: Path) -> List[Mutant]:
	return [parse_mutant(p) for p in sorted(directory.glob('*.patch'))]


def check_names(mutants: List[Mutant], repo: Path, base: str) -> None:
	"""A Killed-by: naming no check of this base could never be met:
	refuse it before anything is built."""
	for m in mutants:
		bad = checknames.unknown(list(m.killed_by), repo, base)
		if bad:
			raise LabError(f'mutant {m.name} names {", ".join(bad)} in '
				       'Killed-by:, which no check reports',
				       'see tools/checknames.py for the names')


def apply(wt: Git, mutant: Mutant) -> None:
	try:
		wt.run(['apply', str(mutant.path)])
	except LabError as e:
		raise LabError(f'mutant {mutant.name} no longer applies to the '
			       f'topic branch ({e})', f'regenerate '
			       f'{mutant.path.name} against the series') from e


def not_applying(git: Git, rev: str, mutants: List[Mutant],
		 index: Path) -> List[str]:
	"""The mutants that no longer apply to rev.  Checked against a private
	index holding rev, so no worktree is touched and nothing is built:
	seconds, where the gauntlet would find out after its baseline."""
	env = {'GIT_INDEX_FILE': str(index)}
	git.run(['read-tree', rev], env=env)
	bad = []
	for m in mutants:
		try:
			git.run(['apply', '--cached', '--check', str(m.path)],
				env=env)
		except LabError:
			bad.append(m.name)
	return bad


@dataclasses.dataclass(frozen=True)
class MutantResult:
	mutant: Mutant
	failed: Tuple[str, ...]		# every check that failed on it
	error: str = ''			# why it could not be judged
	checked: Tuple[str, ...] = ()	# every check that ran on it

	@property
	def killed(self) -> bool:
		return not self.error and any(c in self.failed
					      for c in self.mutant.killed_by)

	def verdict(self) -> Verdict:
		name = f'mutant/{self.mutant.name}'
		if self.error:
			return Verdict(name, FAIL, self.error)
		if self.killed:
			return Verdict(name, PASS, 'killed by ' + ', '.join(
				c for c in self.mutant.killed_by if c in self.failed))
		return Verdict(name, FAIL, f'survived; expected '
			       f'{" ".join(self.mutant.killed_by)} to fail '
			       f'({self.mutant.revives})')


LAB_PREFIX = 'lab/'


def needs_lab(m: Mutant) -> bool:
	"""Judged by a lab cycle: a guest build and a boot per mutant, the
	expensive kind (make test splits the gauntlet on this)."""
	return any(c.startswith(LAB_PREFIX) for c in m.killed_by)


def lab_scenarios(mutants: List[Mutant]) -> List[str]:
	"""Scenarios named by Killed-by: lab/<scenario>/<check> lines."""
	names = []
	for m in mutants:
		for c in m.killed_by:
			if c.startswith(LAB_PREFIX):
				name = c[len(LAB_PREFIX):].split('/', 1)[0]
				if name not in scenarios.SCENARIOS:
					raise LabError(f'mutant {m.name} names lab scenario '
						       f'{name}, which does not exist',
						       'see tools/scenarios.py')
				if name not in names:
					names.append(name)
	return names


def kill_matrix(results: List[MutantResult]) -> str:
	"""Mutants by checks: X failed (killed), . passed, - not run (the
	mutant was killed by a cheaper check first), E not judged."""
	checks = sorted({c for r in results for c in r.mutant.killed_by} |
			{c for r in results for c in r.failed})
	width = max([len(r.mutant.name) for r in results] + [6])
	lines = [' ' * width + '  ' + '  '.join(checks)]
	for r in results:
		cells = ['E'.center(len(c)) if r.error else
			 ('X' if c in r.failed else '.' if c in r.checked or
			  not r.checked else '-').center(len(c))
			 for c in checks]
		state = 'killed' if r.killed else ('ERROR' if r.error else
						   'SURVIVED')
		lines.append(f'{r.mutant.name:<{width}}  {"  ".join(cells)}  '
			     f'{state}')
	return '\n'.join(lines) + '\n'


def matrix_json(results: List[MutantResult]) -> List[dict]:
	return [{'mutant': r.mutant.name, 'revives': r.mutant.revives,
		 'expected': list(r.mutant.killed_by), 'failed': list(r.failed),
		 'checked': list(r.checked), 'killed': r.killed,
		 'error': r.error} for r in results]
