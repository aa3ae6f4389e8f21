#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/mutants.py [NAME ...]: run the mutation gauntlet.

Each mutant in mutants/ revives a known bug on top of the topic branch; the
checks its Killed-by: line names must fail on it, and every check must pass
on the unmutated branch.  A mutant's checks run cheapest first and stop at
its first kill (--full-matrix: all of them, with one kernel build per
mutant either way).  Prints one verdict per mutant and the kill matrix;
details and matrix JSON go to results/mutants-<time>/.  Exits non-zero if a
mutant survives or the unmutated branch fails.
"""

import argparse
import json
import os
import sys
from typing import List

from hiblab import cli, paths, verdict
from hiblab.base import overlay
from hiblab.gauntlet import mutants, run as gauntlet


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('names', nargs='*', help='run only these mutants')
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section); its mutants are mutants/<base>/')
	parser.add_argument('--full-matrix', action='store_true',
			    help='run every check on every mutant (default: '
			    'cheapest first, each mutant up to its first kill)')
	parser.add_argument('--lanes', type=int, default=1,
			    help='mutants judged at once, each in a worktree of '
			    'its own (make test: 2 for the KUnit mutants)')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	return cli.run('mutants', lambda s: run(s, args))


def pick_mutants(base: str, names: List[str]) -> List[mutants.Mutant]:
	"""The base's mutants, or the named ones; an unknown name is bad
	usage (nothing runs)."""
	where = paths.mutant_dir(paths.REPO_ROOT, base)
	found = mutants.read_mutants(where)
	unknown = set(names) - {m.name for m in found}
	if unknown:
		raise cli.UsageError(f'no mutant {", ".join(sorted(unknown))} '
					 f'for base {base}', f'see {where}/*.patch '
					 'for the names')
	return [m for m in found if m.name in names] if names else found


def run(session: cli.Session, args: argparse.Namespace) -> int:
	"""The gauntlet on the base's topic branch, then its verdicts, the
	kill matrix and the files under results/."""
	base = cli.pick_base(args.base)
	picked = pick_mutants(base, args.names)
	tree = session.topic(base)
	results = session.results('mutants')
	session.leave(cli.scratch_note(session.cache))
	baseline, outcome = gauntlet.run_gauntlet(
		gauntlet.GauntletRequest(
			tree.git, tree.git.rev(overlay.TOPIC), base,
			session.cache, results, args.jobs, args.full_matrix,
			max(1, args.lanes)),
		picked)
	verdicts = [verdict.Verdict(f'baseline/{v.name}', v.status,
					v.detail) for v in baseline]
	verdicts += [r.verdict() for r in outcome]
	cli.report(verdicts, results)
	matrix = mutants.kill_matrix(outcome) if outcome else ''
	print(matrix, end='')
	(results / 'kill-matrix.txt').write_text(matrix)
	(results / 'kill-matrix.json').write_text(json.dumps(
		mutants.matrix_json(outcome), indent=1) + '\n')
	print(verdict.summary(verdicts))
	return cli.exit_code(verdicts)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
