# SPDX-License-Identifier: GPL-2.0
"""Every check name a mutant may give as Killed-by: or Stops-at:.

Names are built where the checks are: KUnit suites from the base's series
(<boot>/<suite> for each boot of kunit.BOOTS: kunit, kunit-la57,
kunit-pti), the static checks (static.NAMES), the lab's cycle
checks (lab/<scenario>/[cycle<N>/]<check>, judge.CHECKS over the base's
scenarios), and the stages of each series (series/<series>/<stage>...).  A mutant naming
anything else could never be killed, so it is refused before anything is
built (checknames_test.py checks every shipped mutant).
"""

import re
from pathlib import Path
from typing import List, Set

from hiblab import paths
from hiblab.base import overlay
from hiblab.kernel import kunit, static
from hiblab.lab import judge, scenarios
from hiblab.series import catalog

# kunit_tool's suite names, as `struct kunit_suite` spells them.
_SUITE = re.compile(r'^\s*\.name\s*=\s*"([^"]+)"', re.M)
SERIES_CONFIGS = ('guest', 'kunit')


def kunit_suites(repo: Path, base: str) -> Set[str]:
	"""The suites the base's series adds (files named *kunit*.c)."""
	suites: Set[str] = set()
	for f in paths.overlay_dir(repo, base).glob('*/files/**/*kunit*.c'):
		suites.update(_SUITE.findall(f.read_text()))
	return suites


def lab_cycle_checks(base: str) -> Set[str]:
	names = set()
	for s in scenarios.for_base(base):
		cycles = [''] if s.cycles == 1 else \
			[f'cycle{n}/' for n in range(1, s.cycles + 1)]
		for check in judge.CHECKS:
			names.add(f'lab/{s.name}/{check}')
			names.update(f'lab/{s.name}/{c}{check}' for c in cycles)
	return names


def series_length(repo: Path, base: str) -> int:
	return len(overlay.read_steps(paths.overlay_dir(repo, base)))


def series_checks(repo: Path, base: str) -> Set[str]:
	"""The stages of each series of the base (series/<series>/...); a
	series mutant inserts one commit, so its steps run to count + 1."""
	names: Set[str] = set()
	suites = kunit_suites(repo, base)
	for s in catalog.read_catalog(repo, base, series_length(repo, base)):
		pre = f'series/{s.name}'
		names |= {pre, f'{pre}/applies', f'{pre}/round-trip',
			  f'{pre}/kunit'}
		names |= {f'{pre}/{b.prefix}/{suite}' for b in kunit.BOOTS
			  for suite in suites}
		for n in range(0, len(s.steps) + 2):
			names.add(f'{pre}/mail/{n:04d}')
			if n:
				names.add(f'{pre}/checkpatch/{n:04d}')
				names.add(f'{pre}/build/{n:04d}')
				names.update(f'{pre}/build/{n:04d}-{c}'
					     for c in SERIES_CONFIGS)
	return names


def known(repo: Path, base: str) -> Set[str]:
	suites = kunit_suites(repo, base)
	return {f'{k}/{s}' for s in suites
		for k in (b.prefix for b in kunit.BOOTS)} | \
		set(static.NAMES) | lab_cycle_checks(base) | \
		series_checks(repo, base) | {'build'}


def unknown(names: List[str], repo: Path, base: str) -> List[str]:
	"""The names of `names` that no check of this base reports."""
	have = known(repo, base)
	return [n for n in names if n not in have]
