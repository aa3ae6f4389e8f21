# SPDX-License-Identifier: GPL-2.0
"""Lab runs: build a guest variant and run scenarios on it.

The one entry point for `make qemu-hibernate`, the lab check of `make test`
and the lab-killed mutants of the gauntlet.
"""

import dataclasses
from pathlib import Path
from typing import Callable, List, Optional

from hiblab import paths, verdict
from hiblab.errors import LabError
from hiblab.kernel import guest, variants
from hiblab.lab import judge, qemu, records, report, scenarios
from hiblab.lab.cycle import Cycle, CycleRequest
from hiblab.verdict import FAIL, Verdict

KASLR_TRIES = 3
# How many times a cycle is run again after judge.text_poke_race():
# Debian's 6.12 kernel met it in 2 of 14 boots of one run (a 1-in-7
# chance twice in a row would fail CI too often).
TEXT_POKE_RERUNS = 2
# The verdict of a scenario whose kernel did not build; no mutant may name
# it (a kernel that does not build proves nothing about hibernation).
BUILD_CHECK = 'guest-build'


@dataclasses.dataclass(frozen=True)
class LabRequest:
	tree: Path		# kernel tree to build the guest from
	variant: str		# build variant name ('topic', 'mutant', ...)
	base: str		# the tree's base (linux-base.txt section)
	cache: Path
	results: Path
	scenarios: List[scenarios.Scenario]
	accel: str		# 'auto', 'kvm' or 'tcg'
	jobs: int
	# A kernel that does not build raises (the gauntlet), instead of
	# failing only the scenarios that boot it.
	strict: bool = False


def pick_accel(requested: str, image: guest.GuestImage, results: Path,
	       progress: Callable[[str], None]) -> str:
	"""KVM only if a probe boot (the agent's probe mode) reaches the
	agent; otherwise TCG."""
	if requested != 'auto':
		progress(f'accel: {requested} (requested)')
		return requested
	why = qemu.kvm_usable()
	if not why:
		probe = dataclasses.replace(scenarios.SCENARIOS['smoke'],
					    vcpus=1)
		console = results / 'kvm-probe-console.log'
		g = qemu.Guest(qemu.boot_argv(probe, image, 'kvm', 'probe',
						      console),
				   results / 'kvm-probe-agent.log', console)
		try:
			ok = g.wait_for_event(('probe-ok',), 30.0)
		finally:
			g.kill()
		if ok:
			progress('accel: kvm (probe boot reached the agent)')
			return 'kvm'
		tail = next((l for l in reversed(g.lines + g.console_lines())
			     if l.strip()), 'no output')
		why = f'KVM probe boot failed: {tail.strip()[:100]}'
	progress(f'accel: tcg ({why})')
	return 'tcg'


def kernels_for(req: LabRequest,
		progress: Callable[[str], None]) -> variants.Kernels:
	return variants.Kernels(variants.KernelsRequest(
		req.tree, req.variant, req.base, req.cache, req.jobs), progress)


def prepare(kernels: variants.Kernels, wanted: List[scenarios.Scenario],
	    progress: Callable[[str], None]) -> None:
	"""Builds every kernel the scenarios boot, before any cycle, so that
	a variant that no longer builds is known (kernels.failed) before the
	cycles that do not need it run."""
	for s in wanted:
		for build in (s.build, s.restore):
			try:
				kernels.get(build)
			except LabError as e:
				progress(f'lab: {build.name} kernel: {e}')


def problem(kernels: variants.Kernels, s: scenarios.Scenario) -> str:
	"""Why the scenario cannot run ('' when both kernels built)."""
	for kernel, build in (('image', s.build), ('restore', s.restore)):
		why = kernels.problem(build)
		if why:
			return f'the {kernel} kernel ({build.name}) ' + \
				('is not there' if build.shipped else
				 'did not build') + f': {why}'
	return ''


@dataclasses.dataclass
class LabRun:
	"""A lab run: every scenario's verdicts, named '<scenario>/<check>',
	each scenario's last attempt, and the report written from them."""
	verdicts: List[Verdict]
	cycles: List[records.ScenarioRun]
	report: Optional[Path] = None

	def summary(self) -> str:
		"""'N cycles, F failed, total and per-cycle time'."""
		seconds = [c.record.seconds for c in self.cycles]
		failed = {v.name.split('/', 1)[0] for v in self.verdicts
			  if v.status == FAIL}
		if not seconds:
			return 'lab: no cycle ran'
		return (f'lab: {len(seconds)} cycles, {len(failed)} failed'
			f'{" (" + ", ".join(sorted(failed)) + ")" if failed else ""}'
			f'; {sum(seconds):.0f}s in all, per cycle min '
			f'{min(seconds):.0f}s / mean '
			f'{sum(seconds) / len(seconds):.0f}s / '
			f'max {max(seconds):.0f}s')


def run_name(results: Path) -> str:
	"""results/<run>/... as the report's title names it."""
	try:
		return str(results.resolve().relative_to(
			paths.results_dir().resolve()))
	except ValueError:
		return results.name


def boot_times(record: records.CycleRecord) -> str:
	return '; '.join(f'{b.name}: ' + ', '.join(
		f'{k} {v:.0f}s' for k, v in b.times.items())
		for b in record.boots)


def run_lab(req: LabRequest, progress: Callable[[str], None] = print,
	    kernels: Optional[variants.Kernels] = None) -> LabRun:
	"""Every scenario's verdicts and records.  Every kernel is built
	first; a scenario whose kernel does not build is one FAIL
	(<scenario>/guest-build) and the others run, unless the request is
	strict (the gauntlet: a mutant whose kernel does not build is not
	judged, never killed), which raises the build's LabError."""
	guest.require_tools()
	kernels = kernels or kernels_for(req, progress)
	wanted = req.scenarios
	req.results.mkdir(parents=True, exist_ok=True)
	prepare(kernels, wanted, progress)
	if req.strict and kernels.failed:
		raise LabError(next(iter(kernels.failed.values())))
	run = LabRun([], [])
	if kernels.built:
		accel = pick_accel(req.accel, next(iter(kernels.built.values())),
				   req.results, progress)
	else:
		accel = req.accel
	for scenario in wanted:
		why = problem(kernels, scenario)
		if why:
			run.verdicts.append(Verdict(f'{scenario.name}/{BUILD_CHECK}',
						    FAIL, why))
			continue
		run.verdicts += _run_scenario(req, kernels, scenario, accel, run,
					      progress)
	verdict.write_json(req.results / 'verdicts.json', run.verdicts)
	run.report = report.write(
		req.results, f'lab run {run_name(req.results)} (base {req.base}, '
		f'{req.variant}, {accel})', run.verdicts, run.cycles)
	return run


def _run_scenario(req: LabRequest, kernels: variants.Kernels,
		  scenario: scenarios.Scenario, accel: str, run: LabRun,
		  progress: Callable[[str], None]) -> List[Verdict]:
	"""One scenario's cycle, again in a fresh pair of boots while the two
	kernels drew the same KASLR slot (that run proves nothing about
	KASLR), and again under TCG, up to TEXT_POKE_RERUNS times, while a
	boot died of a stray int3 before its agent started
	(judge.text_poke_race: nothing of the cycle had run; the next such
	death fails).  Its last attempt is added to run.cycles."""
	name = scenario.name
	image = kernels.get(scenario.build)
	restore = kernels.get(scenario.restore)
	attempt, same_slot, raced = 0, 0, []
	while True:
		attempt += 1
		progress(f'lab: {name}: run {attempt} '
			 f'({scenario.description}; {accel})')
		cycle = Cycle(CycleRequest(
			scenario, image, restore,
			req.results / f'{name}-{attempt}', accel))
		got = [dataclasses.replace(v, name=f'{name}/{v.name}')
		       for v in cycle.run()]
		progress(f'lab: {name}: run took {cycle.record.seconds:.0f}s'
			 f' ({boot_times(cycle.record)})')
		race = judge.text_poke_race(cycle.record) \
			if accel == 'tcg' and len(raced) < TEXT_POKE_RERUNS else ''
		if race:
			raced.append(f'run {attempt} ({req.results}/{name}-'
				     f'{attempt}) lost {race}')
			progress(f'lab: {name}: {raced[-1]}: running it again')
			continue
		if not judge.same_kaslr_slot(scenario, cycle.record):
			break
		same_slot += 1
		if same_slot == KASLR_TRIES:
			break
	run.cycles.append(records.ScenarioRun(
		scenario, req.results / f'{name}-{attempt}', cycle.record))
	if raced and got:
		# Said on the cycle's first verdict: make test's closing line
		# stays 'N passed, N failed'.
		got[0] = dataclasses.replace(got[0], detail=got[0].detail +
					     f' (run {attempt}; ' + '; '.join(raced) +
					     ': a text-patching race of TCG before '
					     'the agent started)')
	return got
