# SPDX-License-Identifier: GPL-2.0
"""`make test`: every check of the project, one verdict line each.

The host unit tests run once; every other check runs once per base
(linux-base.txt), its verdicts named `<base>/<check>...`.  A check is a
function taking the run's context and returning a Verdict (or raising
LabError, which is its FAIL detail).  Details go to files under
results/<run>/<base>/; the terminal gets one line per check and the closing
'N passed, N failed' line.
"""

import dataclasses
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

from hiblab import paths, verdict
from hiblab.base import kernel_tree, overlay, pins
from hiblab.errors import LabError
from hiblab.gauntlet import mutants
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import kunit, static
from hiblab.lab import runner, scenarios
from hiblab.lava import jobs
from hiblab.series import series
from hiblab.series.mutants import read_series_mutants
from hiblab.series.request import SeriesRequest
from hiblab.verdict import FAIL, PASS, SKIP, Verdict


@dataclasses.dataclass(frozen=True)
class TestRequest:
	repo: Path
	cache: Path
	only: List[str]
	jobs: int
	bases: List[str] = dataclasses.field(default_factory=list)  # []: all
	# Per-base checks left out of this run (make test's CI budget; make
	# test-all runs everything).
	skip: Dict[str, List[str]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Context:
	req: TestRequest
	results: Path
	base: str = ''
	tree: Optional[kernel_tree.Tree] = None

	def need_tree(self) -> kernel_tree.Tree:
		if self.tree is None:
			raise LabError('no kernel tree (the tree check failed)')
		return self.tree

	def log(self, name: str) -> Path:
		return self.results / f'{name}.log'

	def check_worktree(self) -> Git:
		"""The topic branch in the check worktree (hiblab.paths), where
		the KUnit, lab, mutant and series builds share directories."""
		tree = self.need_tree()
		return prepare_worktree(tree.git,
					paths.check_worktree(self.req.cache,
								 self.base),
					tree.git.rev(overlay.TOPIC))


def check_host_unit_tests(ctx: Context) -> Verdict:
	"""The tools' own unit tests: fake base, fake steps, no kernel."""
	log = ctx.log('host-unit-tests')
	with log.open('w') as f:
		rc = subprocess.run([sys.executable, '-m', 'unittest', 'discover',
				     '-s', str(ctx.req.repo / 'tools'), '-p',
				     '*_test.py'], stdout=f, stderr=subprocess.STDOUT,
				    check=False).returncode
	text = log.read_text()
	m = re.search(r'^Ran (\d+) tests?', text, re.M)
	ran = int(m.group(1)) if m else 0
	if rc != 0 or ran == 0:
		tail = text.strip().splitlines()[-1:] or ['no output']
		return Verdict('host-unit-tests', FAIL,
			       f'{tail[0]} ({ran} ran; see {log})')
	return Verdict('host-unit-tests', PASS, f'{ran} tests')


def check_tree(ctx: Context) -> Verdict:
	"""Base import and topic branch, built the way `make tree` does."""
	log = ctx.log('tree')
	with log.open('w') as f:
		ctx.tree = kernel_tree.ensure_topic(
			kernel_tree.TreeRequest(ctx.req.repo, ctx.req.cache,
					     base=ctx.base),
			progress=lambda s: print(s, file=f, flush=True))
	git = ctx.tree.git
	topic = git.rev(overlay.TOPIC)
	steps = overlay.read_steps(ctx.tree.overlay(ctx.req.repo))
	again = overlay.build_commits(git, ctx.tree.base, steps)
	if git.tree_of(again) != git.tree_of(overlay.TOPIC):
		return Verdict('tree', FAIL, f'{overlay.TOPIC} '
			       f'{topic[:12]} is not what branch-overlay/ builds '
			       f'({again[:12]}); see {log}')
	return Verdict('tree', PASS, f'{len(steps)} step(s) on '
		       f'{ctx.tree.pin.tag}, {overlay.TOPIC} = {topic[:12]}')


def check_overlay_roundtrip(ctx: Context) -> Verdict:
	"""Export the topic branch and rebuild it: the tree must not change."""
	tree = ctx.need_tree()
	with tempfile.TemporaryDirectory(prefix='roundtrip-') as tmp:
		n = overlay.export_topic(tree.git, tree.base, Path(tmp),
					     progress=lambda s: None,
					     mark_synced=False)
		rebuilt = overlay.build_commits(
			tree.git, tree.base, overlay.read_steps(Path(tmp)))
	want = tree.git.tree_of(overlay.TOPIC)
	got = tree.git.tree_of(rebuilt)
	if got != want:
		return Verdict('overlay-roundtrip', FAIL,
			       f'export+rebuild gives tree {got[:12]}, '
			       f'{overlay.TOPIC} has {want[:12]}')
	return Verdict('overlay-roundtrip', PASS,
		       f'{n} step(s), tree {want[:12]} reproduced')


def check_mutants_apply(ctx: Context) -> Verdict:
	"""Every mutant of the base applies to the topic branch and names
	checks that exist: found in seconds, not after a gauntlet's
	baseline build."""
	tree = ctx.need_tree()
	base_mutants = mutants.read_mutants(
		paths.mutant_dir(ctx.req.repo, ctx.base))
	if not base_mutants:
		return Verdict('mutants-apply', SKIP,
			       f'no mutant in mutants/{ctx.base}/')
	mutants.check_names(base_mutants, ctx.req.repo, ctx.base)
	topic = tree.git.rev(overlay.TOPIC)
	with tempfile.TemporaryDirectory(prefix='mutants-apply-') as tmp:
		bad = mutants.not_applying(tree.git, topic, base_mutants,
					       Path(tmp) / 'index')
	if bad:
		return Verdict('mutants-apply', FAIL,
			       f'{", ".join(bad)} no longer appl'
			       f'{"ies" if len(bad) == 1 else "y"} to '
			       f'{overlay.TOPIC} {topic[:12]}: regenerate '
			       f'against the series (mutants/{ctx.base}/)')
	return Verdict('mutants-apply', PASS, f'{len(base_mutants)} mutant(s) '
		       f'apply to {overlay.TOPIC} {topic[:12]}')


def check_kunit(ctx: Context) -> List[Verdict]:
	"""Our suites, built once, booted each way of kunit.BOOTS; then
	the static checks of that kernel."""
	verdicts = []
	wt = ctx.check_worktree()
	build = kunit.check_build_dir(ctx.req.cache, ctx.base)
	for boot in kunit.BOOTS:
		# The first run builds; later ones boot the same kernel.
		sub = 'run' if not verdicts else 'exec'
		_, run = kunit.run_kunit(kunit.KunitRun(
			wt.worktree, ctx.req.cache, ctx.base,
			ctx.results / boot.prefix, ctx.log(boot.prefix),
			[sub, '--arch=x86_64', f'--build_dir={build}'] +
			list(boot.options), ctx.req.jobs), boot.prefix,
			boot.may_skip)
		verdicts += run
	# The KUnit kernel has HIBERNATION and tracepoints: the static checks
	# read it, as the gauntlet does for each mutant.
	return verdicts + static.run_all(build / 'vmlinux',
					     ctx.results / 'static')


def check_lab(ctx: Context) -> List[Verdict]:
	"""The main job: make qemu-hibernate's smoke cycle."""
	wt = ctx.check_worktree()
	with ctx.log('lab').open('w') as f:
		verdicts = runner.run_lab(runner.LabRequest(
			wt.worktree, paths.CHECK_VARIANT, ctx.base, ctx.req.cache,
			ctx.results / 'lab',
			[scenarios.SCENARIOS['smoke']], 'auto', ctx.req.jobs),
			lambda s: print(s, file=f, flush=True)).verdicts
	return [dataclasses.replace(v, name='lab/' + v.name) for v in verdicts]


def check_mutants(ctx: Context) -> List[Verdict]:
	"""The mutants that KUnit and the static checks judge must be killed;
	the baseline must pass."""
	return _gauntlet(ctx, 'mutants', lab=False)


def check_lab_mutants(ctx: Context) -> List[Verdict]:
	"""The mutants a lab cycle judges (a guest build and boot each)."""
	return _gauntlet(ctx, 'lab-mutants', lab=True)


def _gauntlet(ctx: Context, name: str, lab: bool) -> List[Verdict]:
	"""Every mutant of mutants/<base>/ of one kind must be killed."""
	tree = ctx.need_tree()
	base_mutants = [m for m in mutants.read_mutants(
		paths.mutant_dir(ctx.req.repo, ctx.base))
		if mutants.needs_lab(m) == lab]
	if not base_mutants:
		return [Verdict(name, SKIP, f'no such mutant in mutants/{ctx.base}/')]
	results = ctx.results / name
	with ctx.log(name).open('w') as f:
		baseline, outcome = mutants.run_gauntlet(
			mutants.GauntletRequest(
				tree.git, tree.git.rev(overlay.TOPIC), ctx.base,
				ctx.req.cache, results, ctx.req.jobs), base_mutants,
			progress=lambda s: print(s, file=f, flush=True))
	(results / 'kill-matrix.txt').write_text(
		mutants.kill_matrix(outcome) if outcome else '')
	bad = [v for v in baseline if v.status == FAIL]
	verdicts = [Verdict(f'{name}-baseline', FAIL if bad or not baseline
			    else PASS, '; '.join(v.line() for v in bad) or
			    f'{len(baseline)} suite(s) pass unmutated')]
	return verdicts + [r.verdict() for r in outcome]


def check_series(ctx: Context) -> List[Verdict]:
	"""make series (mails only, never sent), then each series mutant
	must stop it at the check it names.  Every commit is built with the
	guest config only: a cold KUnit-config build of the first commit
	would add ~10 minutes to CI; `make series` builds both before a send.
	A rehearsal: CI has no git identity, so the mails are signed off by
	REHEARSAL_SENDER (series/identity.py, an .invalid address), written under
	series/rehearsal-not-for-sending/ with NOT-FOR-SENDING in their
	subjects, from a worktree of their own (series-rehearsal-<base>)."""
	tree = ctx.need_tree()
	req = SeriesRequest(
		tree.git, tree.base, tree.git.rev(overlay.TOPIC), ctx.req.cache,
		ctx.req.repo, ctx.results / 'series', ctx.req.jobs,
		base_name=ctx.base, configs=('guest',), rehearsal=True)
	with ctx.log('series').open('w') as f:
		def progress(s: str) -> None:
			print(s, file=f, flush=True)
		verdicts = series.Series(req, progress).run()
		series_mutants = read_series_mutants(ctx.req.repo, ctx.base)
		verdicts += series.run_series_mutants(req, series_mutants, progress)
	return verdicts


CheckResult = Union[Verdict, List[Verdict]]
def check_lava_jobs(ctx: Context) -> List[Verdict]:
	"""Every scenario of the base as a LAVA job (make lava-jobs' generator,
	artifact URLs as it lays them out), validated offline with
	lava-common's strict schema; a broken copy must be refused."""
	out = ctx.results / 'lava-jobs'
	out.mkdir(parents=True, exist_ok=True)
	url = 'file://' + str(paths.results_dir(ctx.req.repo) /
			      'lava-jobs' / 'artifacts')
	job_files = []
	for s in scenarios.for_base(ctx.base):
		path = out / f'{s.name}.yaml'
		path.write_text(jobs.dump(jobs.job(
			s, ctx.base, 'tcg', jobs.artifacts(s, url))))
		job_files.append(path)
	return [dataclasses.replace(v, name=f'lava/{v.name}')
		for v in jobs.check_files(job_files)]


# Once per run.
HOST_CHECKS: Dict[str, Callable[[Context], CheckResult]] = {
	'host-unit-tests': check_host_unit_tests,
}
# Once per base, in this order; 'tree' is the one the others stand on.
BASE_CHECKS: Dict[str, Callable[[Context], CheckResult]] = {
	'tree': check_tree,
	'overlay-roundtrip': check_overlay_roundtrip,
	'mutants-apply': check_mutants_apply,
	'lava-jobs': check_lava_jobs,
	'kunit': check_kunit,
	'lab': check_lab,
	'mutants': check_mutants,
	'lab-mutants': check_lab_mutants,
	'series': check_series,
}


def _run_check(name: str, check: Callable[[Context], CheckResult],
	       ctx: Context) -> List[Verdict]:
	"""One check's verdicts, printed as they come, named for the base."""
	label = f'{ctx.base}/{name}' if ctx.base else name
	print(f'test: running {label} ...', flush=True)
	start = time.monotonic()
	try:
		result = check(ctx)
	except LabError as e:
		result = Verdict(name, FAIL, str(e))
	elapsed = time.monotonic() - start
	out = []
	for i, v in enumerate(result if isinstance(result, list) else [result]):
		# The check's time once, on its first line.
		v = dataclasses.replace(v, seconds=elapsed if i == 0 else 0,
					name=f'{ctx.base}/{v.name}' if ctx.base
					else v.name)
		out.append(v)
		verdict.report(v, sys.stdout)
	return out


# What `make test` leaves to `make test-all` to stay inside CI's 90 minutes
# on two cores: base -> checks.  README's `make test` entry has the measured
# cold times; these checks would take the run far past 80 minutes.
CI_SKIP: Dict[str, List[str]] = {
	'7.3': ['lab', 'mutants', 'lab-mutants', 'series'],
}


def run_all(req: TestRequest) -> int:
	known = list(HOST_CHECKS) + list(BASE_CHECKS)
	unknown = [n for n in req.only if n not in known]
	if unknown:
		print(f'error: unknown check(s) {", ".join(unknown)}: choose from '
		      f'{", ".join(known)}', file=sys.stderr)
		return 2
	try:
		pinned = pins.read_bases(paths.base_pin_file(req.repo))
		bases = req.bases or list(pinned)
		for b in bases:
			pins.read_pin(paths.base_pin_file(req.repo), b)
		results = paths.run_dir('test', req.repo)
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		return 2
	print(f'test: details in {results}; bases {", ".join(bases)}',
	      flush=True)
	verdicts = []
	ctx = Context(req, results)
	for name, check in HOST_CHECKS.items():
		if not req.only or name in req.only:
			verdicts += _run_check(name, check, ctx)
	for base in bases:
		ctx = Context(req, results / base, base)
		ctx.results.mkdir(parents=True, exist_ok=True)
		for name, check in BASE_CHECKS.items():
			if name != 'tree' and (req.only and name not in req.only or
					       name in req.skip.get(base, [])):
				continue
			verdicts += _run_check(name, check, ctx)
	skipped = [f'{b}/{n}' for b in bases for n in req.skip.get(b, [])
		   if not req.only or n in req.only]
	if skipped:
		print(f'test: not in this run: {", ".join(skipped)} (make '
		      'test-all runs them)', flush=True)
	verdict.write_json(results / 'verdicts.json', verdicts)
	print(verdict.summary(verdicts), flush=True)
	return 0 if all(v.status != FAIL for v in verdicts) else 1
