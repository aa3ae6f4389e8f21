#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/series.py: make the topic branch a series ready for b4 send.

Enrolls a copy of the topic branch with b4 prep (cover letter from
branch-overlay/cover-letter.txt, recipients from get_maintainer.pl checked
against MAINTAINERS-notes), runs checkpatch --strict on every patch, builds
every commit on its own (guest and KUnit configs, W=1 for the files it
touches), writes the mails with `b4 send -o`, and checks that `git am` of
those mails onto the pristine base gives the topic branch's tree.  Never
sends mail.  One verdict line per check; everything else goes to
results/series-<time>/ (patches/, mails/, logs, verdicts.json).
"""

import argparse
import os
import sys
from pathlib import Path

import lab_overlay
import lab_lock
import lab_paths
import lab_series
import lab_tree
import lab_verdict
from lab_errors import LabError


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
	try:
		results = lab_paths.run_dir('series')
		mutant = lab_series.parse_series_mutant(args.mutant) \
			if args.mutant else None
		cache = lab_paths.cache_dir()
		with lab_lock.CacheLock(cache):
			tree = lab_tree.ensure_topic(lab_tree.TreeRequest(
				lab_paths.REPO_ROOT, cache, base=args.base))
			print(f'series: base {tree.pin.name}, results in {results}',
			      flush=True)
			verdicts = lab_series.Series(lab_series.SeriesRequest(
				tree.git, tree.base, tree.git.rev(lab_overlay.TOPIC), cache,
				lab_paths.REPO_ROOT, results, args.jobs,
				base_name=tree.pin.name, builds=not args.no_builds,
				mutant=mutant),
				lambda s: print(s, flush=True)).run()
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		print('VERDICT series: FAIL (see the error above)')
		return 1
	for v in verdicts:
		lab_verdict.report(v, sys.stdout)
	lab_verdict.write_json(results / 'verdicts.json', verdicts)
	failed = any(v.status == lab_verdict.FAIL for v in verdicts)
	if not failed:
		print(f'series: mails in {results / "mails"}; to send them: '
		      f'cd {lab_paths.worktree(cache, tree.pin.name, "series")} '
		      '&& b4 send --reflect '
		      '(rehearsal), then b4 send')
	print(f'VERDICT series: {"FAIL" if failed else "PASS"} '
	      f'({lab_verdict.summary(verdicts)})')
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
