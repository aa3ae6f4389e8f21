#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/qemu_hibernate.py [SCENARIO ...]: real hibernation cycles in QEMU.

Builds the topic branch's guest kernel, then for each scenario (default:
smoke) hibernates the guest to a virtual disk, powers QEMU off, boots a
second QEMU on the disk, proves where every vCPU is parked while the image
is restored, and checks the resumed system.  One verdict line per check,
then a final verdict; logs, the gdb transcript and verdict.json go to
results/lab-<time>/<scenario>/.
"""

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import List

import lab_cycle
import lab_guest
import lab_paths
import lab_qemu
import lab_scenarios
import lab_tree
import lab_verdict
from lab_errors import LabError
from lab_verdict import FAIL, SKIP, Verdict

KASLR_TRIES = 3


def pick_accel(requested: str, image: lab_guest.GuestImage,
	       results: Path) -> str:
	"""KVM only if a probe boot reaches the agent; otherwise TCG."""
	if requested != 'auto':
		print(f'accel: {requested} (requested)')
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
			print('accel: kvm (probe boot reached the agent)')
			return 'kvm'
		tail = next((l for l in reversed(g.lines + g.console_lines())
			     if l.strip()), 'no output')
		why = f'KVM probe boot failed: {tail.strip()[:100]}'
	print(f'accel: tcg ({why})')
	return 'tcg'


def run(names: List[str], accel: str, jobs: int) -> int:
	cache = lab_paths.cache_dir()
	lab_guest.require_tools()
	tree = lab_tree.ensure_topic(lab_tree.TreeRequest(lab_paths.REPO_ROOT,
							  cache))
	image = lab_guest.build_guest(lab_guest.GuestRequest(
		tree.path, cache, 'topic', jobs))
	results = lab_paths.results_dir() / time.strftime('lab-%Y%m%d-%H%M%S')
	results.mkdir(parents=True, exist_ok=True)
	print(f'lab: results in {results}')
	accel = pick_accel(accel, image, results)
	verdicts: List[Verdict] = []
	for name in names:
		scenario = lab_scenarios.SCENARIOS[name]
		for attempt in range(1, KASLR_TRIES + 1):
			print(f'lab: {name}: cycle {attempt} ({scenario.description}; '
			      f'{accel})', flush=True)
			start = time.monotonic()
			cycle = lab_cycle.Cycle(lab_cycle.CycleRequest(
				scenario, image, image, results /
				f'{name}-{attempt}', accel))
			got = cycle.run()
			collided = any(v.name == 'kaslr' and v.status == SKIP
				       for v in got)
			for v in got:
				lab_verdict.report(dataclasses.replace(
					v, name=f'{name}/{v.name}'), sys.stdout)
			print(f'lab: {name}: cycle took {time.monotonic() - start:.0f}s '
			      f'({", ".join(f"{k} {v:.0f}s" for k, v in cycle.times.items())})')
			if not collided:
				break
		verdicts += [dataclasses.replace(v, name=f'{name}/{v.name}')
			     for v in got]
	lab_verdict.write_json(results / 'verdicts.json', verdicts)
	failed = [v for v in verdicts if v.status == FAIL]
	print(f'VERDICT qemu-hibernate: {"FAIL" if failed or not verdicts else "PASS"}'
	      f' ({lab_verdict.summary(verdicts)}; {accel})')
	return 1 if failed or not verdicts else 0


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('scenarios', nargs='*', default=['smoke'],
			    help=f'of {", ".join(lab_scenarios.SCENARIOS)}')
	parser.add_argument('--all', action='store_true',
			    help='run every scenario')
	parser.add_argument('--accel', choices=('auto', 'kvm', 'tcg'),
			    default='auto')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	names = list(lab_scenarios.SCENARIOS) if args.all else args.scenarios
	unknown = [n for n in names if n not in lab_scenarios.SCENARIOS]
	if unknown:
		print(f'error: unknown scenario(s) {", ".join(unknown)}: choose '
		      f'from {", ".join(lab_scenarios.SCENARIOS)}', file=sys.stderr)
		return 2
	try:
		return run(names, args.accel, args.jobs)
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		print('VERDICT qemu-hibernate: FAIL (see the error above)')
		return 1


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
