#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/mutants.py [NAME ...]: run the mutation gauntlet.

Each mutant in mutants/ revives a known bug on top of the topic branch; the
checks its Killed-by: line names must fail on it, and every check must pass
on the unmutated branch.  Prints one verdict per mutant and the kill matrix;
details and matrix JSON go to results/mutants-<time>/.  Exits non-zero if a
mutant survives or the unmutated branch fails.
"""

import argparse
import json
import os
import sys

import lab_base
import lab_mutants
import lab_overlay
import lab_lock
import lab_paths
import lab_tree
import lab_verdict
from lab_errors import LabError


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('names', nargs='*', help='run only these mutants')
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section); its mutants are mutants/<base>/')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	try:
		base = lab_base.read_pin(lab_paths.base_pin_file(), args.base).name
		where = lab_paths.mutant_dir(lab_paths.REPO_ROOT, base)
		mutants = lab_mutants.read_mutants(where)
		unknown = set(args.names) - {m.name for m in mutants}
		if unknown:
			raise LabError(f'no mutant {", ".join(sorted(unknown))} for '
				       f'base {base}', f'see {where}/*.patch for the '
				       'names')
		if args.names:
			mutants = [m for m in mutants if m.name in args.names]
		cache = lab_paths.cache_dir()
		with lab_lock.CacheLock(cache):
			tree = lab_tree.ensure_topic(lab_tree.TreeRequest(
				lab_paths.REPO_ROOT, cache, base=base))
			results = lab_paths.run_dir('mutants')
			baseline, outcome = lab_mutants.run_gauntlet(
				lab_mutants.GauntletRequest(
					tree.git, tree.git.rev(lab_overlay.TOPIC), base,
					cache, results, args.jobs), mutants)
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		return 1
	verdicts = [lab_verdict.Verdict(f'baseline/{v.name}', v.status,
					v.detail) for v in baseline]
	verdicts += [r.verdict() for r in outcome]
	for v in verdicts:
		lab_verdict.report(v, sys.stdout)
	matrix = lab_mutants.kill_matrix(outcome) if outcome else ''
	print(matrix, end='')
	(results / 'kill-matrix.txt').write_text(matrix)
	(results / 'kill-matrix.json').write_text(json.dumps(
		lab_mutants.matrix_json(outcome), indent=1) + '\n')
	lab_verdict.write_json(results / 'verdicts.json', verdicts)
	print(lab_verdict.summary(verdicts))
	return 0 if all(v.status != lab_verdict.FAIL for v in verdicts) else 1


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
