# SPDX-License-Identifier: GPL-2.0
"""Lab runs: build a guest variant and run scenarios on it.

The one entry point for `make qemu-hibernate`, the lab check of `make test`
and the lab-killed mutants of the gauntlet.
"""

import dataclasses
import time
from pathlib import Path
from typing import Callable, List

import lab_cycle
import lab_guest
import lab_qemu
import lab_scenarios
from lab_verdict import SKIP, Verdict

KASLR_TRIES = 3


@dataclasses.dataclass(frozen=True)
class LabRequest:
	tree: Path		# kernel tree to build the guest from
	variant: str		# build variant name ('topic', 'mutant', ...)
	cache: Path
	results: Path
	scenarios: List[str]
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


def run_lab(req: LabRequest, progress: Callable[[str], None] = print
	    ) -> List[Verdict]:
	"""Every scenario's verdicts, named '<scenario>/<check>'."""
	lab_guest.require_tools()
	image = lab_guest.build_guest(lab_guest.GuestRequest(
		req.tree, req.cache, req.variant, req.jobs), progress)
	req.results.mkdir(parents=True, exist_ok=True)
	accel = pick_accel(req.accel, image, req.results, progress)
	verdicts: List[Verdict] = []
	for name in req.scenarios:
		scenario = lab_scenarios.SCENARIOS[name]
		for attempt in range(1, KASLR_TRIES + 1):
			progress(f'lab: {name}: cycle {attempt} '
				 f'({scenario.description}; {accel})')
			start = time.monotonic()
			cycle = lab_cycle.Cycle(lab_cycle.CycleRequest(
				scenario, image, image,
				req.results / f'{name}-{attempt}', accel))
			got = [dataclasses.replace(v, name=f'{name}/{v.name}')
			       for v in cycle.run()]
			times = ', '.join(f'{k} {v:.0f}s'
					  for k, v in cycle.times.items())
			progress(f'lab: {name}: cycle took '
				 f'{time.monotonic() - start:.0f}s ({times})')
			if not any(v.name.endswith('/kaslr') and v.status == SKIP
				   for v in got):
				break
		verdicts += got
	return verdicts
