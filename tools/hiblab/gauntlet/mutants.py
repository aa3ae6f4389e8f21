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
tree) and built in one build directory per check kind, so going from one
mutant to the next rebuilds only the files the two patches touch.
"""

import dataclasses
import re
from pathlib import Path
from typing import Callable, List, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.gauntlet import checknames
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import kunit, static
from hiblab.lab import runner, scenarios
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


@dataclasses.dataclass(frozen=True)
class GauntletRequest:
	tree: Git
	commit: str		# the unmutated topic branch
	base: str		# its base's name
	cache: Path
	results: Path
	jobs: int


def boots_needed(mutants: List[Mutant]) -> List[kunit.Boot]:
	"""The plain KUnit boot, and each other boot a Killed-by: names a
	check of (kunit-la57/<suite>, kunit-pti/<suite>)."""
	return [b for b in kunit.BOOTS if b == kunit.PLAIN or
		any(c.startswith(b.prefix + '/')
		    for m in mutants for c in m.killed_by)]


def _kunit_checks(req: GauntletRequest, wt: Git, label: str,
		  build_dir: Path, boots: List[kunit.Boot]
		  ) -> Tuple[bool, List[Verdict]]:
	"""Builds the worktree's KUnit kernel and boots it each way of
	`boots`: (built, verdicts)."""
	common = ['--arch=x86_64', f'--build_dir={build_dir}']
	logs = req.results / label
	logs.mkdir(parents=True, exist_ok=True)
	rc, _ = kunit.run_kunit(kunit.KunitRun(
		wt.worktree, req.cache, req.base, logs, logs / 'build.log',
		['build'] + common, req.jobs))
	if rc != 0:
		return False, []
	verdicts: List[Verdict] = []
	for boot in boots:
		plain = boot == kunit.PLAIN
		_, more = kunit.run_kunit(kunit.KunitRun(
			wt.worktree, req.cache, req.base,
			logs if plain else logs / boot.prefix,
			logs / ('exec.log' if plain else f'exec-{boot.prefix}.log'),
			['exec'] + common + list(boot.options), req.jobs),
			boot.prefix, boot.may_skip)
		verdicts += more
	# The KUnit kernel has HIBERNATION=y: the static checks read it too.
	static_verdicts = static.run_all(build_dir / 'vmlinux', logs / 'static')
	(logs / 'static.txt').write_text(''.join(v.line() + '\n'
						 for v in static_verdicts))
	return True, verdicts + static_verdicts


LAB_PREFIX = 'lab/'


def needs_lab(m: Mutant) -> bool:
	"""Judged by a lab cycle: a guest build and a boot per mutant, the
	expensive kind (make test splits the gauntlet on this)."""
	return any(c.startswith(LAB_PREFIX) for c in m.killed_by)


def _lab_scenarios(mutants: List[Mutant]) -> List[str]:
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


def _lab_checks(req: GauntletRequest, wt: Git, label: str,
		names: List[str]) -> List[Verdict]:
	logs = req.results / label / 'lab'
	logs.mkdir(parents=True, exist_ok=True)
	with (logs / 'progress.log').open('w') as f:
		verdicts = runner.run_lab(runner.LabRequest(
			wt.worktree, paths.CHECK_VARIANT, req.base, req.cache, logs,
			[scenarios.SCENARIOS[n] for n in names], 'auto',
			req.jobs), lambda s: print(s, file=f, flush=True)).verdicts
	return [dataclasses.replace(v, name=LAB_PREFIX + v.name)
		for v in verdicts]


def run_gauntlet(req: GauntletRequest, mutants: List[Mutant],
		 progress: Callable[[str], None] = print
		 ) -> Tuple[List[Verdict], List[MutantResult]]:
	"""The unmutated branch's verdicts, then each mutant's result."""
	check_names(mutants, paths.REPO_ROOT, req.base)
	wt_path = paths.check_worktree(req.cache, req.base)
	progress(f'mutants: baseline (unmutated {req.commit[:12]}) in {wt_path}')
	# Fixed once: every mutant builds incrementally in the same directory.
	build_dir = kunit.check_build_dir(req.cache, req.base)
	wt = prepare_worktree(req.tree, wt_path, req.commit)
	built, baseline = _kunit_checks(req, wt, 'baseline', build_dir,
					boots_needed(mutants))
	if not built:
		return [Verdict('mutant-baseline', FAIL, 'the unmutated branch '
				f'does not build (see {req.results / "baseline"})')], []
	lab_names = _lab_scenarios(mutants)
	if lab_names:
		progress(f'mutants: baseline lab ({", ".join(lab_names)})')
		baseline += _lab_checks(req, wt, 'baseline', lab_names)
	results = []
	for n, m in enumerate(mutants, 1):
		progress(f'mutants: [{n}/{len(mutants)}] {m.name}')
		wt = prepare_worktree(req.tree, wt_path, req.commit)
		apply(wt, m)
		built, verdicts = _kunit_checks(req, wt, m.name, build_dir,
						boots_needed([m]))
		lab = _lab_scenarios([m])
		if built and lab:
			try:
				verdicts += _lab_checks(req, wt, m.name, lab)
			except LabError as e:
				# A mutant guest that does not build is not killed.
				built = False
				progress(f'mutants: {m.name}: {e}')
		log = req.results / m.name / 'build.log'
		if not built and m.build_error:
			verdicts = [judge_build_failure(m, log.read_text(
				errors='replace') if log.exists() else '')]
			built = verdicts[0].status == FAIL
		failed = tuple(v.name for v in verdicts if v.status == FAIL)
		error = '' if built else f'does not build (see {log})'
		results.append(MutantResult(m, failed, error))
	prepare_worktree(req.tree, wt_path, req.commit)
	return baseline, results


def kill_matrix(results: List[MutantResult]) -> str:
	"""Mutants by checks: X failed (killed), . passed, E not judged."""
	checks = sorted({c for r in results for c in r.mutant.killed_by} |
			{c for r in results for c in r.failed})
	width = max([len(r.mutant.name) for r in results] + [6])
	lines = [' ' * width + '  ' + '  '.join(checks)]
	for r in results:
		cells = ['E'.center(len(c)) if r.error else
			 ('X' if c in r.failed else '.').center(len(c))
			 for c in checks]
		state = 'killed' if r.killed else ('ERROR' if r.error else
						   'SURVIVED')
		lines.append(f'{r.mutant.name:<{width}}  {"  ".join(cells)}  '
			     f'{state}')
	return '\n'.join(lines) + '\n'


def matrix_json(results: List[MutantResult]) -> List[dict]:
	return [{'mutant': r.mutant.name, 'revives': r.mutant.revives,
		 'expected': list(r.mutant.killed_by), 'failed': list(r.failed),
		 'killed': r.killed, 'error': r.error} for r in results]
