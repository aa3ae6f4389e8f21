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
"""

import dataclasses
import shutil
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

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
	results = []
	for n, m in enumerate(mutants, 1):
		progress(f'mutants: [{n}/{len(mutants)}] {m.name}')
		wt = prepare_worktree(req.tree, wt_path, req.commit)
		apply(wt, m)
		results.append(judge_mutant(req, wt, m, progress))
	prepare_worktree(req.tree, wt_path, req.commit)
	return baseline, results
