# SPDX-License-Identifier: GPL-2.0
"""Lab runs: build a guest variant and run scenarios on it.

The one entry point for `make qemu-hibernate`, the lab check of `make test`
and the lab-killed mutants of the gauntlet.
"""

import dataclasses
from pathlib import Path
from typing import Callable, Dict, List, Optional

from hiblab import paths, verdict
from hiblab.kernel import guest, variants
from hiblab.lab import judge, qemu, records, report, scenarios
from hiblab.lab.cycle import Cycle, CycleRequest
from hiblab.verdict import FAIL, Verdict

KASLR_TRIES = 3


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


class Images:
	"""Guest images by Build, each built once per run."""

	def __init__(self, req: LabRequest,
		     progress: Callable[[str], None]) -> None:
		self.req = req
		self.progress = progress
		self.built: Dict[scenarios.Build, guest.GuestImage] = {}

	def get(self, build: scenarios.Build) -> guest.GuestImage:
		# A variant the base does not need is its plain build.
		build = build.on(self.req.base)
		if build not in self.built:
			req = self.req
			tree, label = req.tree, req.variant
			if build.patch:
				# One worktree and build directory per variant,
				# shared by the topic and every mutant: incremental.
				tree = variants.variant_tree(req.tree, req.cache,
								 req.base, build.patch)
				label = f'variant-{build.patch}'
			fragments = (guest.FRAGMENT,)
			if build.config:
				fragments += (variants.config_path(build.config),)
				label += f'-{build.config}'
			self.built[build] = guest.build_guest(
				guest.GuestRequest(tree, req.cache, label,
						       req.jobs, fragments),
				self.progress)
		return self.built[build]


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


def run_lab(req: LabRequest, progress: Callable[[str], None] = print
	    ) -> LabRun:
	"""Every scenario's verdicts and records."""
	guest.require_tools()
	images = Images(req, progress)
	wanted = req.scenarios
	req.results.mkdir(parents=True, exist_ok=True)
	accel = pick_accel(req.accel, images.get(wanted[0].build),
			   req.results, progress)
	run = LabRun([], [])
	for scenario in wanted:
		name = scenario.name
		image = images.get(scenario.build)
		restore = images.get(scenario.restore)
		for attempt in range(1, KASLR_TRIES + 1):
			progress(f'lab: {name}: run {attempt} '
				 f'({scenario.description}; {accel})')
			cycle = Cycle(CycleRequest(
				scenario, image, restore,
				req.results / f'{name}-{attempt}', accel))
			got = [dataclasses.replace(v, name=f'{name}/{v.name}')
			       for v in cycle.run()]
			progress(f'lab: {name}: run took {cycle.record.seconds:.0f}s'
				 f' ({boot_times(cycle.record)})')
			if not judge.same_kaslr_slot(scenario, cycle.record):
				break
		run.verdicts += got
		run.cycles.append(records.ScenarioRun(
			scenario, req.results / f'{name}-{attempt}', cycle.record))
	verdict.write_json(req.results / 'verdicts.json', run.verdicts)
	run.report = report.write(
		req.results, f'lab run {run_name(req.results)} (base {req.base}, '
		f'{req.variant}, {accel})', run.verdicts, run.cycles)
	return run
