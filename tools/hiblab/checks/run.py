# SPDX-License-Identifier: GPL-2.0
"""`make test`: the checks of every base (side by side, or in turn for
make test-all), one verdict line each, and the closing 'N passed, N failed'
line."""

import dataclasses
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, TextIO

from hiblab import paths, verdict
from hiblab.base import pins
from hiblab.checks import basic, kernels, room, series_check
from hiblab.checks.context import BESIDE_NICE, CheckResult, Context, \
	TestRequest
from hiblab.errors import LabError
from hiblab.verdict import FAIL, Verdict

# Once per run.
HOST_CHECKS: Dict[str, Callable[[Context], CheckResult]] = {
	'host-unit-tests': basic.check_host_unit_tests,
}
# Once per base, in this order; 'tree' is the one the others stand on.
BASE_CHECKS: Dict[str, Callable[[Context], CheckResult]] = {
	'tree': basic.check_tree,
	'overlay-roundtrip': basic.check_overlay_roundtrip,
	'mutants-apply': basic.check_mutants_apply,
	'lava-jobs': basic.check_lava_jobs,
	'kunit': kernels.check_kunit,
	'lab': kernels.check_lab,
	'variants': kernels.check_variants,
	'config-variants': kernels.check_config_variants,
	'mutants': kernels.check_mutants,
	'lab-mutants': kernels.check_lab_mutants,
	'series': series_check.check_series,
}


class Lines:
	"""stdout for checks running side by side: each thread's text goes
	out in whole lines, never mixed with another's."""

	def __init__(self, out: TextIO) -> None:
		self.out = out
		self.lock = threading.Lock()
		self.partial = threading.local()

	def write(self, text: str) -> int:
		buf = getattr(self.partial, 'text', '') + text
		done, _, self.partial.text = buf.rpartition('\n')
		if done:
			with self.lock:
				self.out.write(done + '\n')
				self.out.flush()
		return len(text)

	def flush(self) -> None:
		pass


def _run_check(name: str, check: Callable[[Context], CheckResult],
	       ctx: Context, out: TextIO) -> List[Verdict]:
	"""One check's verdicts, printed as they come, named for the base."""
	label = f'{ctx.base}/{name}' if ctx.base else name
	print(f'test: running {label} ...', file=out, flush=True)
	start = time.monotonic()
	try:
		result = check(ctx)
	except LabError as e:
		result = Verdict(name, FAIL, str(e))
	elapsed = time.monotonic() - start
	got = []
	for i, v in enumerate(result if isinstance(result, list) else [result]):
		# The check's time once, on its first line.
		v = dataclasses.replace(v, seconds=elapsed if i == 0 else 0,
					name=f'{ctx.base}/{v.name}' if ctx.base
					else v.name)
		got.append(v)
		verdict.report(v, out)
	return got


# What `make test` leaves to `make test-all` to stay inside CI's 90 minutes
# on two cores: base -> checks.  7.3, the base our series is for, is checked
# fully, its config variants built as whole kernels too (lockdep-trace:
# 389 s on a cache that holds the check kernel); 6.12 as the backport base:
# its tree, round trip, KUnit, lab (the smoke cycle and the cycles with
# Debian's own kernel) and series, without the per-commit builds
# (series-builds: 7.3's series are the same commits, built one by one in
# the same run) and the series mutants (series-mutants: they test the
# stages, which 7.3's series mutants test in the same run).  On both bases
# a series with Hold: (every 6.12 series, a backport rehearsal; 7.3's
# header-addresses) is rehearsed as mails only, without its KUnit suites on
# its own stack and its per-commit builds (held-series-stacks): it is not
# to be sent, and its commits are built and tested in the topic by the
# same run.  README's `make test` entry has the measured times, the
# left-out checks' among them.
CI_SKIP: Dict[str, List[str]] = {
	'7.3': [series_check.HELD_SERIES_STACKS],
	'6.12': ['variants', 'config-variants', 'mutants', 'lab-mutants',
		 series_check.SERIES_BUILDS,
		 series_check.SERIES_MUTANTS, series_check.HELD_SERIES_STACKS],
}


def checked_first(bases: List[str]) -> List[str]:
	"""The bases, the one make test checks most fully (7.3, the one our
	series is for) first: a failure there is the one that matters, and the
	backport base's checks come last, where README's left-out list
	starts."""
	return sorted(bases, key=lambda b: len(CI_SKIP.get(b, [])))


def run_all(req: TestRequest) -> int:
	known = list(HOST_CHECKS) + list(BASE_CHECKS)
	unknown = [n for n in req.only if n not in known]
	if unknown:
		print(f'error: unknown check(s) {", ".join(unknown)}: choose from '
		      f'{", ".join(known)}', file=sys.stderr)
		return 2
	try:
		pinned = pins.read_bases(paths.base_pin_file(req.repo))
		bases = req.bases or checked_first(list(pinned))
		for b in bases:
			pins.read_pin(paths.base_pin_file(req.repo), b)
		results = paths.run_dir('test', req.repo)
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		return 2
	print(f'test: details in {results}; bases {", ".join(bases)}',
	      flush=True)
	verdicts = _room(req, bases)
	if any(v.status == FAIL for v in verdicts):
		return _end(results, verdicts)
	out = Lines(sys.stdout)
	ctx = Context(req, results)
	for name, check in HOST_CHECKS.items():
		if not req.only or name in req.only:
			verdicts += _run_check(name, check, ctx, out)
	verdicts += run_bases(req, results, bases, out)
	skipped = [f'{b}/{n}' for b in bases for n in req.skip.get(b, [])
		   if not req.only or n in req.only]
	if skipped:
		print(f'test: not in this run: {", ".join(skipped)} (make '
		      'test-all runs them)', flush=True)
	return _end(results, verdicts)


def run_base(req: TestRequest, ctx: Context, out: TextIO,
	     got: List[Verdict]) -> None:
	"""The checks of one base, in BASE_CHECKS' order, their verdicts
	added to got as each check ends."""
	ctx.results.mkdir(parents=True, exist_ok=True)
	for name, check in BASE_CHECKS.items():
		if name != 'tree' and (req.only and name not in req.only or
				       name in req.skip.get(ctx.base, [])):
			continue
		got += _run_check(name, check, ctx, out)


def run_bases(req: TestRequest, results: Path, bases: List[str],
	      out: TextIO) -> List[Verdict]:
	"""Every base's checks, the verdicts in the order of bases.  Side by
	side, the bases after the first run in threads beside it, their
	kernel builds niced; their lines come as their checks end."""
	got: Dict[str, List[Verdict]] = {b: [] for b in bases}

	def run(base: str, nice: int) -> None:
		ctx = Context(req, results / base, base, nice=nice)
		try:
			run_base(req, ctx, out, got[base])
		except Exception as e:	# a bug in a check: still a verdict
			v = Verdict(f'{base}/checks', FAIL, f'stopped: {e!r}')
			verdict.report(v, out)
			got[base].append(v)

	beside = bases[1:] if req.side_by_side else []
	threads = [threading.Thread(target=run, args=(b, BESIDE_NICE),
				    name=f'checks-{b}') for b in beside]
	for t in threads:
		t.start()
	for b in bases:
		if b not in beside:
			run(b, 0)
	for t in threads:
		t.join()
	return [v for b in bases for v in got[b]]


# Checks that need no worktree or build (the tree's import is ~2 GB a
# base, and fails at once if it does not fit): a run of only these skips
# disk-room.  Any other run is measured as a cold make test of its bases.
ROOMLESS = ('host-unit-tests', 'tree', 'overlay-roundtrip', 'mutants-apply')


def _room(req: TestRequest, bases: List[str]) -> List[Verdict]:
	"""The disk-room verdict (checks.room), printed; none for a run of
	ROOMLESS checks only."""
	if req.only and all(n in ROOMLESS for n in req.only):
		return []
	gone = room.retire_worktrees(req.cache, bases)
	if gone:
		print(f'test: removed the old layout\'s worktrees {", ".join(gone)}',
		      flush=True)
	v = room.judge_room(req.cache, room.cold_size(bases),
			    room.used(room.held_paths(req.cache, bases)),
			    room.free(req.cache))
	verdict.report(v, sys.stdout)
	return [v]


def _end(results: Path, verdicts: List[Verdict]) -> int:
	"""verdicts.json, the closing line, and the exit code."""
	verdict.write_json(results / 'verdicts.json', verdicts)
	print(verdict.summary(verdicts), flush=True)
	return 0 if all(v.status != FAIL for v in verdicts) else 1
