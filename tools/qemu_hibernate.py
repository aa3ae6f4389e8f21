#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/qemu_hibernate.py [SCENARIO ...]: real hibernation cycles in QEMU.

Builds the topic branch's check kernel (make test's: the lab's guest
configuration with the KUnit suites built in, booted with kunit.enable=0),
then for each scenario (default:
smoke) hibernates the guest to a virtual disk, powers QEMU off, boots a
second QEMU on the disk, proves where every vCPU is parked while the image
is restored, and checks the resumed system.  One verdict line per check,
then a final verdict; logs, the gdb transcript and record.json go to
results/lab-<time>/<scenario>-<attempt>/.
"""

import argparse
import os
import sys
import time
from typing import List

from hiblab import cli, paths
from hiblab.kernel import variants
from hiblab.lab import runner, scenarios


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('scenarios', nargs='*', default=['smoke'],
			    help=f'of {", ".join(scenarios.SCENARIOS)}')
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
	return cli.run('qemu-hibernate', lambda s: run(s, args))


def pick_scenarios(args: argparse.Namespace,
		   base: str) -> List[scenarios.Scenario]:
	"""The scenarios asked for; one that does not exist, or does not run
	on this base, is bad usage (nothing runs)."""
	ours = [s.name for s in scenarios.for_base(base)]
	names = ours if args.all else args.scenarios
	unknown = [n for n in names if n not in scenarios.SCENARIOS]
	if unknown:
		raise cli.UsageError(f'unknown scenario(s) {", ".join(unknown)}',
					 f'choose from {", ".join(ours)}')
	elsewhere = [n for n in names if n not in ours]
	if elsewhere:
		raise cli.UsageError(f'scenario(s) {", ".join(elsewhere)} do '
					 f'not run on base {base}',
					 f'choose from {", ".join(ours)}')
	picked = [scenarios.SCENARIOS[n] for n in names]
	if args.stress:
		seed = args.seed if args.seed is not None else int(time.time())
		print(f'lab: stress: {args.stress} cycles, seed {seed} (repeat '
		      f'with --stress {args.stress} --seed {seed})')
		picked = scenarios.stress_scenarios(args.stress, seed)
	return picked


def run(session: cli.Session, args: argparse.Namespace) -> int:
	base = cli.pick_base(args.base)
	picked = pick_scenarios(args, base)
	cache = session.cache
	tree = session.topic(base)
	results = session.results('lab')
	print(f'lab: base {base} ({tree.pin.tag}), results in '
	      f'{results}')
	wt = variants.check_worktree(tree.git, cache, base)

	def progress(s: str) -> None:
		print(s, flush=True)
	run = runner.run_lab(runner.LabRequest(
		wt.worktree, paths.CHECK_VARIANT, base, cache, results, picked,
		args.accel, args.jobs), progress,
		variants.check_kernels(wt.worktree, base, cache, args.jobs,
				       progress))
	verdicts = run.verdicts
	cli.report(verdicts)	# run_lab wrote verdicts.json
	if args.stress:
		print(run.summary())
	print(f'lab: report {run.report}')
	print(cli.verdict_line('qemu-hibernate', verdicts))
	return cli.exit_code(verdicts)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
