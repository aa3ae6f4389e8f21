#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/series.py: make each series of the base ready for b4 send.

A base's series are the branch-overlay/<base>/*.series files, each a named
subset of the stack with its cover letter, prefix, version, target and
prerequisites.  For each (or --series NAME alone): its patches applied
with git am on the pristine base and its prerequisites only; a copy of
that enrolled with b4 prep (recipients from get_maintainer.pl checked
against the series' block in MAINTAINERS-notes); checkpatch --strict on
every patch; every commit built on its own (guest and KUnit configs, W=1
for the files it touches); its KUnit suites and its prerequisites' passing
on that stack; the mails written with `b4 send -o` (base-commit: and
prerequisite-patch-id: in the cover letter); and `git am` of those mails
giving the stack's tree back.  The mails are the sender's: git's
user.name/user.email (the author of our own patches, a Signed-off-by on
every one); a placeholder identity is refused before anything runs.
Never sends mail.  One verdict line per check; everything else goes to
results/series-<time>/<series>/ (patches/, mails/, logs, verdicts.json).
"""

import argparse
import os
import sys
from pathlib import Path

from hiblab import cli, paths
from hiblab.base import overlay
from hiblab.git import Git
from hiblab.series import catalog, identity, mutants, request, series


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section)')
	parser.add_argument('--series', metavar='NAME', default='',
			    help='only this series of the base (default: all)')
	parser.add_argument('--no-builds', action='store_true',
			    help='skip the per-commit builds (the slow stage) '
			    'and the series mutants that stop at one; each '
			    'series\' KUnit suites on its own stack still run')
	parser.add_argument('--mutant', type=Path, metavar='PATCH',
			    help='insert a series mutant (mutants/series/) first, '
			    'to see the run stop')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	return cli.run('series', lambda s: run(s, args))


def read_mutant(path: Path) -> mutants.SeriesMutant:
	"""--mutant's patch; a path that is not a file is bad usage (it
	would otherwise surface as a Python traceback from read_text)."""
	if not path.is_file():
		raise cli.UsageError(f'--mutant {path}: no such file',
					 'name a patch of mutants/<base>/series/')
	return mutants.parse_series_mutant(path)


def series_catalog(base: str, only: str) -> list:
	"""The base's series; an unknown --series is bad usage."""
	steps = len(overlay.read_steps(paths.overlay_dir(paths.REPO_ROOT, base)))
	found = catalog.read_catalog(paths.REPO_ROOT, base, steps)
	if only and only not in [s.name for s in found]:
		raise cli.UsageError(f'no series {only} on base {base}',
				     'choose from ' +
				     ', '.join(s.name for s in found))
	return found


def run(session: cli.Session, args: argparse.Namespace) -> int:
	"""b4 prep, checkpatch, builds, b4 send -o and the git am round trip
	on a copy of the topic branch; then the verdicts and the next step."""
	base = cli.pick_base(args.base)
	mutant = read_mutant(args.mutant) if args.mutant else None
	cache = session.cache
	# Refused before the lock and before anything runs.
	path = paths.tree_dir(cache, base)
	sender = identity.judge_sender(identity.read_git_sender(
		Git(path if path.is_dir() else Path('/'))))
	tree = session.topic(base)
	# b4 send, run later from the series worktree, must see the user's
	# identity too.
	identity.drop_import_identity(tree.git)
	results = session.results('series')
	print(f'series: base {tree.pin.name}, results in {results}, sender '
	      f'{identity.format_identity(sender)}', flush=True)
	session.leave(cli.scratch_note(cache))
	req = request.SeriesRequest(
		tree.git, tree.base, tree.git.rev(overlay.TOPIC), cache,
		paths.REPO_ROOT, results, args.jobs,
		base_name=tree.pin.name, builds=not args.no_builds,
		mutant=mutant, sender=sender)
	catalog = series_catalog(tree.pin.name, args.series)
	progress = lambda s: print(s, flush=True)
	if mutant:
		verdicts = series.run_series_mutants(req, catalog, [mutant],
						     progress)
	else:
		verdicts = series.run_base(req, catalog, args.series, progress)
	if not cli.report(verdicts, results):
		for s in catalog:
			if args.series in ('', s.name) and not s.hold:
				wt = paths.worktree(cache, tree.pin.name,
						    f'series-{s.name}')
				print(f'series: {s.name}: mails in '
				      f'{results / s.name / "mails"}; to send '
				      f'them: cd {wt} && b4 send --reflect '
				      '(rehearsal), then b4 send')
	print(cli.verdict_line('series', verdicts))
	return cli.exit_code(verdicts)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
