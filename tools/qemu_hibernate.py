#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/qemu_hibernate.py [SCENARIO ...]: real hibernation cycles in QEMU.

Builds the topic branch's guest kernel, then for each scenario (default:
smoke) hibernates the guest to a virtual disk, powers QEMU off, boots a
second QEMU on the disk, proves where every vCPU is parked while the image
is restored, and checks the resumed system.  One verdict line per check,
then a final verdict; logs, the gdb transcript and verdict.json go to
results/lab-<time>/<scenario>-<attempt>/.
"""

import argparse
import os
import sys
import time

import lab_base
import lab_lab
import lab_lock
import lab_paths
import lab_scenarios
import lab_tree
import lab_verdict
from lab_errors import LabError


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('scenarios', nargs='*', default=['smoke'],
			    help=f'of {", ".join(lab_scenarios.SCENARIOS)}')
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section)')
	parser.add_argument('--all', action='store_true',
			    help='run every scenario')
	parser.add_argument('--stress', type=int, metavar='N',
			    help='N smoke cycles with seeded random CPU offline '
			    'patterns and hotplug churn while hibernating')
	parser.add_argument('--seed', type=int,
			    help='seed for --stress (default: from the clock, '
			    'printed)')
	parser.add_argument('--accel', choices=('auto', 'kvm', 'tcg'),
			    default='auto')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	try:
		base = lab_base.read_pin(lab_paths.base_pin_file(), args.base).name
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		return 2
	ours = [s.name for s in lab_scenarios.for_base(base)]
	names = ours if args.all else args.scenarios
	unknown = [n for n in names if n not in lab_scenarios.SCENARIOS]
	if unknown:
		print(f'error: unknown scenario(s) {", ".join(unknown)}: choose '
		      f'from {", ".join(ours)}', file=sys.stderr)
		return 2
	elsewhere = [n for n in names if n not in ours]
	if elsewhere:
		print(f'error: scenario(s) {", ".join(elsewhere)} do not run on '
		      f'base {base}: choose from {", ".join(ours)}',
		      file=sys.stderr)
		return 2
	scenarios = [lab_scenarios.SCENARIOS[n] for n in names]
	if args.stress:
		seed = args.seed if args.seed is not None else int(time.time())
		print(f'lab: stress: {args.stress} cycles, seed {seed} (repeat '
		      f'with --stress {args.stress} --seed {seed})')
		scenarios = lab_scenarios.stress_scenarios(args.stress, seed)
	try:
		results = lab_paths.run_dir('lab')
		cache = lab_paths.cache_dir()
		with lab_lock.CacheLock(cache):
			tree = lab_tree.ensure_topic(lab_tree.TreeRequest(
				lab_paths.REPO_ROOT, cache, base=base))
			print(f'lab: base {base} ({tree.pin.tag}), results in '
			      f'{results}')
			verdicts = lab_lab.run_lab(lab_lab.LabRequest(
				tree.path, 'topic', base, cache, results, scenarios,
				args.accel, args.jobs), lambda s: print(s, flush=True))
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		print('VERDICT qemu-hibernate: FAIL (see the error above)')
		return 1
	for v in verdicts:
		lab_verdict.report(v, sys.stdout)
	lab_verdict.write_json(results / 'verdicts.json', verdicts)
	failed = any(v.status == lab_verdict.FAIL for v in verdicts)
	if args.stress:
		print(lab_lab.cycle_summary(results, [s.name for s in scenarios],
					    verdicts))
	print(f'VERDICT qemu-hibernate: {"FAIL" if failed else "PASS"} '
	      f'({lab_verdict.summary(verdicts)})')
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
