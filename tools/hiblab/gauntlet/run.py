# SPDX-License-Identifier: GPL-2.0
"""Running the gauntlet: the unmutated branch, then each mutant, in the
check worktree, on one kernel per configuration.

A tree state (the baseline, or the topic with one mutant applied) is built
once: the check kernel (kernel.guest.check_fragments: the lab's guest with
our KUnit suites), which the static checks read, kunit_tool boots (exec)
and the lab cycles boot (with kunit.enable=0).  Its checks then run
cheapest first, in stages:

  static    objdump of its vmlinux                       seconds
  kunit     the plain KUnit boot                         a boot
  boots     the other KUnit boots a Killed-by: names     a boot each
  lab/<s>   each lab scenario a Killed-by: names         a cycle each

A mutant stops at the first stage after which a check its Killed-by:
names has failed: killed, nothing more to learn.  --full-matrix
(GauntletRequest.full_matrix) runs every stage for every mutant, for the
kill matrix itself.  The baseline always runs every stage any mutant
needs, and must pass them all.

A mutant whose kernel does not build is killed only by Killed-by: build
with a log line matching its Build-error:; any other build failure, of
the check kernel or of a lab variant, is an error: never a kill.

With GauntletRequest.lanes > 1 the mutants run in that many lanes at once,
each a worktree of its own with its own build directories (the check
worktree, then paths.worktree(..., LANE_WORKTREE + n)), taking the next
mutant when done: a mutant's link, KUnit boot and objdump use one core,
so two lanes keep a two-core machine busy.  The baseline runs first, in
the check worktree; every lane builds the same commit with the same
configuration, so its verdicts hold for all of them.
"""

import dataclasses
import queue
import shutil
import threading
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.gauntlet.mutants import (LAB_PREFIX, Mutant, MutantResult, apply,
				     check_names, judge_build_failure,
				     lab_scenarios)
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import guest, kunit, static, variants
from hiblab.lab import runner, scenarios
from hiblab.verdict import FAIL, Verdict

Stage = Tuple[str, Callable[[], List[Verdict]]]


@dataclasses.dataclass(frozen=True)
class GauntletRequest:
	tree: Git
	commit: str		# the unmutated topic branch
	base: str		# its base's name
	cache: Path
	results: Path
	jobs: int
	# Every stage for every mutant, instead of stopping at the first
	# stage that kills it.
	full_matrix: bool = False
	lanes: int = 1		# mutants run at once (module docstring)


# The worktrees of the lanes after the first: <name><n>-<base>.
LANE_WORKTREE = 'check-lane'


def boots_needed(mutants: List[Mutant]) -> List[kunit.Boot]:
	"""The plain KUnit boot, and each other boot a Killed-by: names a
	check of (kunit-la57/<suite>, kunit-pti/<suite>)."""
	return [b for b in kunit.BOOTS if b == kunit.PLAIN or
		any(c.startswith(b.prefix + '/')
		    for m in mutants for c in m.killed_by)]


class TreeChecks:
	"""The checks of one state of the check worktree (label: 'baseline'
	or a mutant's name), its logs under results/<label>/."""

	def __init__(self, req: GauntletRequest, wt: Git, label: str,
		     progress: Callable[[str], None]) -> None:
		self.req = req
		self.wt = wt
		self.logs = req.results / label
		self.logs.mkdir(parents=True, exist_ok=True)
		self.progress = progress
		self.kernels = variants.Kernels(variants.KernelsRequest(
			wt.worktree, paths.CHECK_VARIANT, req.base, req.cache,
			req.jobs, in_place=True), self._log_progress)

	def _log_progress(self, line: str) -> None:
		with (self.logs / 'progress.log').open('a') as f:
			print(line, file=f)

	def build(self) -> str:
		"""'' when the check kernel built, else the build's error; its
		log is kept as build.log either way."""
		try:
			image = self.kernels.get(variants.PLAIN)
			shutil.copyfile(image.build / guest.BUILD_LOG,
					self.logs / 'build.log')
			return ''
		except LabError as e:
			log = self.kernels.log(variants.PLAIN)
			if log.is_file():
				shutil.copyfile(log, self.logs / 'build.log')
			return str(e)

	def stages(self, boots: List[kunit.Boot],
		   lab: List[str]) -> Iterator[Stage]:
		"""The stages of the built kernel, cheapest first."""
		vmlinux = self.kernels.get(variants.PLAIN).build / 'vmlinux'
		yield 'static', lambda: self._static(vmlinux)
		for boot in boots:
			yield boot.prefix, lambda b=boot: self._boot(b)
		for name in lab:
			yield LAB_PREFIX + name, lambda n=name: self._lab(n)

	def _static(self, vmlinux: Path) -> List[Verdict]:
		got = static.run_all(vmlinux, self.logs / 'static')
		(self.logs / 'static.txt').write_text(''.join(
			v.line() + '\n' for v in got))
		return got

	def _boot(self, boot: kunit.Boot) -> List[Verdict]:
		build = self.kernels.get(variants.PLAIN).build
		plain = boot == kunit.PLAIN
		_, got = kunit.run_kunit(kunit.KunitRun(
			self.wt.worktree, self.req.cache, self.req.base,
			self.logs if plain else self.logs / boot.prefix,
			self.logs / ('exec.log' if plain else
				     f'exec-{boot.prefix}.log'),
			kunit.exec_args(build, boot), self.req.jobs),
			boot.prefix, boot.may_skip)
		return got

	def _lab(self, name: str) -> List[Verdict]:
		logs = self.logs / 'lab' / name
		with (self.logs / 'lab-progress.log').open('a') as f:
			got = runner.run_lab(runner.LabRequest(
				self.wt.worktree, paths.CHECK_VARIANT, self.req.base,
				self.req.cache, logs, [scenarios.SCENARIOS[name]],
				'auto', self.req.jobs, strict=True),
				lambda s: print(s, file=f, flush=True),
				self.kernels).verdicts
		return [dataclasses.replace(v, name=LAB_PREFIX + v.name)
			for v in got]


def run_stages(checks: TreeChecks, boots: List[kunit.Boot], lab: List[str],
	       mutant: Optional[Mutant] = None) -> List[Verdict]:
	"""The stages' verdicts; with a mutant (and no full matrix), only up
	to the first stage after which it is killed."""
	got: List[Verdict] = []
	for name, stage in checks.stages(boots, lab):
		checks.progress(f'mutants: {checks.logs.name}: {name}')
		got += stage()
		if mutant and not checks.req.full_matrix and any(
			v.status == FAIL and v.name in mutant.killed_by
			for v in got):
			break
	return got


def judge_mutant(req: GauntletRequest, wt: Git, m: Mutant,
		 progress: Callable[[str], None]) -> MutantResult:
	checks = TreeChecks(req, wt, m.name, progress)
	error = checks.build()
	if error:
		if not m.build_error:
			return MutantResult(m, (), f'does not build ({error}; '
					    f'see {checks.logs / "build.log"})')
		log = checks.logs / 'build.log'
		v = judge_build_failure(m, log.read_text(errors='replace')
					if log.is_file() else '')
		return MutantResult(m, (v.name,) if v.status == FAIL else (),
				    '' if v.status == FAIL else
				    f'does not build, and not as Build-error: '
				    f'says ({v.detail})', (v.name,))
	try:
		got = run_stages(checks, boots_needed([m]), lab_scenarios([m]),
				 m)
	except LabError as e:
		# A lab variant of this mutant that does not build is not a
		# kill either.
		return MutantResult(m, (), str(e))
	return MutantResult(m, tuple(v.name for v in got if v.status == FAIL),
			    '', tuple(v.name for v in got))


def lane_worktrees(req: GauntletRequest) -> List[Path]:
	"""The check worktree, then one more per lane."""
	return [paths.check_worktree(req.cache, req.base)] + \
		[paths.worktree(req.cache, req.base, f'{LANE_WORKTREE}{n}')
		 for n in range(2, req.lanes + 1)]


def run_lanes(req: GauntletRequest, mutants: List[Mutant],
	      progress: Callable[[str], None]) -> List[MutantResult]:
	"""Each mutant judged in the first lane free, the results in the
	order of mutants.  A lane's worktree is made before the lanes start
	(git worktree add takes the repository's lock)."""
	todo: 'queue.Queue[Tuple[int, Mutant]]' = queue.Queue()
	for n, m in enumerate(mutants):
		todo.put((n, m))
	done: Dict[int, MutantResult] = {}
	lock = threading.Lock()

	def say(line: str) -> None:
		with lock:
			progress(line)

	def lane(path: Path) -> None:
		while True:
			try:
				n, m = todo.get_nowait()
			except queue.Empty:
				return
			say(f'mutants: [{n + 1}/{len(mutants)}] {m.name} '
			    f'(in {path.name})')
			try:
				wt = prepare_worktree(req.tree, path, req.commit)
				apply(wt, m)
				done[n] = judge_mutant(req, wt, m, say)
			except Exception as e:	# not a kill: this mutant's error
				done[n] = MutantResult(m, (), f'stopped: {e!r}')
	paths_ = lane_worktrees(req)[:max(1, min(req.lanes, len(mutants)))]
	for path in paths_:
		prepare_worktree(req.tree, path, req.commit)
	threads = [threading.Thread(target=lane, args=(p,), name=p.name)
		   for p in paths_]
	for t in threads:
		t.start()
	for t in threads:
		t.join()
	for path in paths_:
		prepare_worktree(req.tree, path, req.commit)
	return [done[n] for n in range(len(mutants))]


def run_gauntlet(req: GauntletRequest, mutants: List[Mutant],
		 progress: Callable[[str], None] = print
		 ) -> Tuple[List[Verdict], List[MutantResult]]:
	"""The unmutated branch's verdicts, then each mutant's result."""
	check_names(mutants, paths.REPO_ROOT, req.base)
	wt_path = paths.check_worktree(req.cache, req.base)
	progress(f'mutants: baseline (unmutated {req.commit[:12]}) in {wt_path}')
	wt = prepare_worktree(req.tree, wt_path, req.commit)
	base_checks = TreeChecks(req, wt, 'baseline', progress)
	error = base_checks.build()
	if error:
		return [Verdict('mutant-baseline', FAIL, 'the unmutated branch '
				f'does not build ({error})')], []
	baseline = run_stages(base_checks, boots_needed(mutants),
			      lab_scenarios(mutants))
	return baseline, run_lanes(req, mutants, progress)
