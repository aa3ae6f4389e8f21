# SPDX-License-Identifier: GPL-2.0
"""Lab runs: build a guest variant and run scenarios on it.

The one entry point for `make qemu-hibernate`, the lab check of `make test`
and the lab-killed mutants of the gauntlet.
"""

import dataclasses
import json
import time
from pathlib import Path
from typing import Callable, Dict, List

import lab_cycle
import lab_guest
import lab_qemu
import lab_scenarios
import lab_variants
from lab_verdict import FAIL, SKIP, Verdict

KASLR_TRIES = 3


@dataclasses.dataclass(frozen=True)
class LabRequest:
	tree: Path		# kernel tree to build the guest from
	variant: str		# build variant name ('topic', 'mutant', ...)
	base: str		# the tree's base (linux-base.txt section)
	cache: Path
	results: Path
	scenarios: List[lab_scenarios.Scenario]
	accel: str		# 'auto', 'kvm' or 'tcg'
	jobs: int


def pick_accel(requested: str, image: lab_guest.GuestImage, results: Path,
	       progress: Callable[[str], None]) -> str:
	"""KVM only if a probe boot reaches the agent; otherwise TCG."""
	if requested != 'auto':
		progress(f'accel: {requested} (requested)')
		return requested
	why = lab_qemu.kvm_usable()
	if not why:
		probe = dataclasses.replace(lab_scenarios.SCENARIOS['smoke'],
					    vcpus=1)
		req = lab_cycle.CycleRequest(probe, image, image, results, 'kvm')
		disk = results / 'probe.img'
		disk.write_bytes(b'')
		console = results / 'kvm-probe-console.log'
		g = lab_qemu.Guest(lab_cycle.qemu_argv(req, image, disk, 'probe',
						       '', console),
				   results / 'kvm-probe-agent.log', console)
		try:
			ok = g.wait_for(lambda l: 'HIBLAB hello' in l, 30.0)
		finally:
			g.kill()
		disk.unlink()
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
		self.built: Dict[lab_scenarios.Build, lab_guest.GuestImage] = {}

	def get(self, build: lab_scenarios.Build) -> lab_guest.GuestImage:
		if build not in self.built:
			req = self.req
			tree, label = req.tree, req.variant
			if build.patch:
				# One worktree and build directory per variant,
				# shared by the topic and every mutant: incremental.
				tree = lab_variants.variant_tree(req.tree, req.cache,
								 req.base, build.patch)
				label = f'variant-{build.patch}'
			fragments = (lab_guest.FRAGMENT,)
			if build.config:
				fragments += (lab_variants.config_path(build.config),)
				label += f'-{build.config}'
			self.built[build] = lab_guest.build_guest(
				lab_guest.GuestRequest(tree, req.cache, label,
						       req.jobs, fragments),
				self.progress)
		return self.built[build]


def run_lab(req: LabRequest, progress: Callable[[str], None] = print
	    ) -> List[Verdict]:
	"""Every scenario's verdicts, named '<scenario>/<check>'."""
	lab_guest.require_tools()
	images = Images(req, progress)
	scenarios = req.scenarios
	req.results.mkdir(parents=True, exist_ok=True)
	accel = pick_accel(req.accel, images.get(scenarios[0].build),
			   req.results, progress)
	verdicts: List[Verdict] = []
	for scenario in scenarios:
		name = scenario.name
		image = images.get(scenario.build)
		restore = images.get(scenario.restore)
		for attempt in range(1, KASLR_TRIES + 1):
			progress(f'lab: {name}: run {attempt} '
				 f'({scenario.description}; {accel})')
			start = time.monotonic()
			cycle = lab_cycle.Cycle(lab_cycle.CycleRequest(
				scenario, image, restore,
				req.results / f'{name}-{attempt}', accel))
			got = [dataclasses.replace(v, name=f'{name}/{v.name}')
			       for v in cycle.run()]
			times = ', '.join(f'{k} {v:.0f}s'
					  for k, v in cycle.times.items())
			progress(f'lab: {name}: run took '
				 f'{time.monotonic() - start:.0f}s ({times})')
			if not any(v.name.endswith('/kaslr') and v.status == SKIP
				   for v in got):
				break
		verdicts += got
	return verdicts


def cycle_summary(results: Path, names: List[str],
		  verdicts: List[Verdict]) -> str:
	"""'N cycles, F failed, total and per-cycle time' from a run's
	verdict.json files (the last attempt of each scenario)."""
	seconds = []
	for name in names:
		runs = sorted(results.glob(f'{name}-*/verdict.json'))
		if runs:
			seconds.append(json.loads(runs[-1].read_text())
				       .get('seconds', 0.0))
	failed = {v.name.split('/', 1)[0] for v in verdicts if v.status == FAIL}
	if not seconds:
		return f'lab: {len(names)} cycles, none ran'
	return (f'lab: {len(names)} cycles, {len(failed)} failed'
		f'{" (" + ", ".join(sorted(failed)) + ")" if failed else ""}; '
		f'{sum(seconds):.0f}s in all, per cycle min '
		f'{min(seconds):.0f}s / mean {sum(seconds) / len(seconds):.0f}s / '
		f'max {max(seconds):.0f}s')
