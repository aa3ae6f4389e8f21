# SPDX-License-Identifier: GPL-2.0
"""The captured real runs the series tests read (test_data/, see its
README), and the helpers that turn their logs back into records.

Where a capture is a whole `make series` run (test_data/6.12/, the 6.12
series stage of a `make test`), the judges must give back the very verdict
lines that run printed (its verdicts.json)."""

import json
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from hiblab.series import mutants
from hiblab.series.builds import BuildRun
from hiblab.series.checkpatch import CheckpatchRun
from hiblab.series.runs import Run
from hiblab.verdict import Verdict

DATA = Path(__file__).resolve().parent / 'test_data'


RUN = DATA / '6.12'			# make test's 6.12 series stage


MADE = DATA / 'produced'		# real tools on real (damaged) inputs


ME = 'hibernate-lab@example.org'	# the series' author, never a recipient


SENDER = ('Jane Doe', 'jane.doe@kernel.org')	# the identity of IDENTITY's run


IDENTITY = DATA / 'identity'		# a make series with a real-looking sender


KIRILL = ('Kirill A. Shutemov', 'kirill.shutemov@linux.intel.com')


F666 = 'f666c92090a41ac5524dade63ff96b3adcf8c2ab'


# v1's 6.12 patch 1, a backport of F666 (v2 dropped it; neither series has
# a backport now), as the overlay stored it.
BACKPORT = DATA / 'identity' / 'backport-commit.txt'


def logged_runs(log: Path, failed: Optional[Dict[int, int]] = None) -> List[Run]:
	"""The runs in a log runs.run_logged wrote: a '$ argv' line,
	then that run's output.  The logs carry no exit code: `failed` maps
	the index of each run that failed to its code (the README says which
	did); every other run exited 0."""
	failed = failed or {}
	parts = re.split(r'^\$ (.*)\n', log.read_text(), flags=re.M)[1:]
	return [Run(tuple(argv.split(' ')), failed.get(i, 0), out, log)
		for i, (argv, out) in enumerate(zip(parts[::2], parts[1::2]))]


def checkpatch_runs(log: Path) -> List[CheckpatchRun]:
	return [CheckpatchRun(Path(r.argv[-1]), r) for r in logged_runs(log)]


def build_runs(log: Path, commits: Sequence[tuple],
	   failed: Optional[Dict[int, int]] = None) -> List[BuildRun]:
	"""The BuildRuns of a build-<config>.log: each commit's runs start
	with its allnoconfig; W=1 runs come in pairs, parent then commit.
	commits: (subject, touched .c files) per commit, in order."""
	groups: List[List[Run]] = []
	for r in logged_runs(log, failed):
		if r.argv[-1] == 'allnoconfig':
			groups.append([])
		groups[-1].append(r)
	out = []
	for n, (group, (subject, touched)) in enumerate(zip(groups, commits), 1):
		make = tuple(r for r in group if 'W=1' not in r.argv)
		w1 = [r for r in group if 'W=1' in r.argv] or [None, None]
		out.append(BuildRun(n, f'{n:040x}', subject, 'guest',
				    tuple(touched), make, w1[0], w1[1]))
	return out


def printed(prefix: str) -> List[str]:
	"""The verdict lines the captured run printed for names under
	6.12/<prefix>, without the base."""
	checks = json.loads((RUN / 'verdicts.json').read_text())['checks']
	return [Verdict(c['name'][len('6.12/'):], c['status'], c['detail']).line()
		for c in checks if c['name'].startswith(f'6.12/{prefix}')]


def lines(verdicts: Sequence[Verdict]) -> List[str]:
	return [v.line() for v in verdicts]


def subjects(series_log: Path) -> List[str]:
	"""The commits' subjects, from the progress lines of the run."""
	return re.findall(r'^series: building \d+/\d+ "(.*)" \(guest config\)$',
			  series_log.read_text(), re.M)


def mutant(name: str) -> mutants.SeriesMutant:
	return mutants.parse_series_mutant(RUN / 'mutants' / f'{name}.patch')

# The .c files each commit of the 6.12 series touches (git diff
# --name-only of the topic branch), in series order.
TOUCHED_612 = [('arch/x86/mm/ident_map.c',), ('arch/x86/mm/ident_map.c',),
	       ('arch/x86/mm/ident_map.c',),
	       ('arch/x86/mm/ident_map_kunit.c', 'arch/x86/mm/init_64.c'),
	       ('arch/x86/power/hibernate.c',),
	       ('arch/x86/power/hibernate.c',
		'arch/x86/power/hibernate_kunit.c'),
	       ('arch/x86/kernel/smpboot.c', 'arch/x86/power/cpu.c')]
