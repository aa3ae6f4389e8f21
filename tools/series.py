#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/series.py: make the topic branch a series ready for b4 send.

Enrolls a copy of the topic branch with b4 prep (cover letter from
branch-overlay/cover-letter.txt, recipients from get_maintainer.pl checked
against MAINTAINERS-notes), runs checkpatch --strict on every patch, builds
every commit on its own (guest and KUnit configs, W=1 for the files it
touches), writes the mails with `b4 send -o`, and checks that `git am` of
those mails onto the pristine base gives the topic branch's tree.  The
mails are the sender's: git's user.name/user.email (the author of our own
patches, a Signed-off-by on every one); a placeholder identity is refused
before anything runs.  Never sends mail.  One verdict line per check; everything else goes to
results/series-<time>/ (patches/, mails/, logs, verdicts.json).
"""

import argparse
import os
import sys
from pathlib import Path

from hiblab import cli, paths
from hiblab.base import overlay
from hiblab.git import Git
from hiblab.series import identity, mutants, request, series


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section)')
	parser.add_argument('--no-builds', action='store_true',
			    help='skip the per-commit builds (the slow stage)')
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
	verdicts = series.Series(request.SeriesRequest(
		tree.git, tree.base, tree.git.rev(overlay.TOPIC), cache,
		paths.REPO_ROOT, results, args.jobs,
		base_name=tree.pin.name, builds=not args.no_builds,
		mutant=mutant, sender=sender),
		lambda s: print(s, flush=True)).run()
	if not cli.report(verdicts, results):
		print(f'series: mails in {results / "mails"}; to send them: '
		      f'cd {paths.worktree(cache, tree.pin.name, "series")} '
		      '&& b4 send --reflect '
		      '(rehearsal), then b4 send')
	print(cli.verdict_line('series', verdicts))
	return cli.exit_code(verdicts)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
