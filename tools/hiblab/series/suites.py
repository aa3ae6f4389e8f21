# SPDX-License-Identifier: GPL-2.0
"""A series' KUnit suites, run on the series' own stack.

The suites of a series are those its patches and its prerequisites' add or
change (the kunit_suite .name of every *_kunit.c they touch).  They must
pass, in every boot of kernel.kunit.BOOTS, on the check kernel built from
the pristine base, the prerequisites and the series, with nothing else of
the topic: a test that depends on a patch the series does not declare
fails here, although it passes on the whole stack.
"""

import re
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import guest, kunit, variants
from hiblab.series.builds import series_variant
from hiblab.verdict import FAIL, Verdict

_SUITE = re.compile(r'struct\s+kunit_suite\s+\w+\s*=\s*\{[^}]*?'
		    r'\.name\s*=\s*"([^"]+)"', re.S)


def suite_names(text: str) -> List[str]:
	"""The kunit_suite names a C file defines."""
	return _SUITE.findall(text)


def suites_of(tree: Git, start: str, tip: str) -> List[str]:
	"""The suites of the *_kunit.c files that start..tip adds or
	changes, as they are at tip."""
	names: List[str] = []
	for path in tree.text(['diff', '--name-only', start, tip]).split():
		if path.endswith('_kunit.c'):
			text = tree.run(['show', f'{tip}:{path}'],
					check=False).decode(errors='replace')
			names += [n for n in suite_names(text) if n not in names]
	return names


def judge_suites(wanted: Sequence[str], got: Sequence[Verdict],
		 boots: Sequence[kunit.Boot], prefix: str) -> List[Verdict]:
	"""The verdicts of the wanted suites in each boot, named
	<prefix>/<boot>/<suite>; a wanted suite a boot did not report is a
	FAIL (not built on this stack, or the kernel died before it)."""
	out = []
	by_name = {v.name: v for v in got}
	for boot in boots:
		crashed = by_name.get(boot.prefix)
		for suite in wanted:
			v = by_name.get(f'{boot.prefix}/{suite}')
			if v is None:
				why = crashed.detail if crashed else \
					'not in the kernel of this stack'
				v = Verdict(f'{boot.prefix}/{suite}', FAIL,
					    f'did not run: {why}')
			out.append(Verdict(f'{prefix}/{v.name}', v.status,
					   v.detail))
	return out


def run_suites(tree: Git, cache: Path, base: str, commit: str,
	       wanted: Sequence[str], results: Path, jobs: int,
	       progress: Callable[[str], None]) -> Optional[List[Verdict]]:
	"""Builds the check kernel of commit in the check worktree
	(incremental from the topic's build, or from the last stack far
	from the topic: builds.series_variant()), boots it each way
	and judges the wanted suites; None when that kernel does not build
	(not a finding about the tests)."""
	wt = prepare_worktree(tree, paths.check_worktree(cache, base), commit)
	check = guest.build_dir_for(guest.GuestRequest(
		wt.worktree, cache, paths.CHECK_VARIANT, jobs,
		guest.check_fragments(base)))
	kernels = variants.Kernels(variants.KernelsRequest(
		wt.worktree, series_variant(tree, commit, check), base, cache,
		jobs), progress)
	try:
		image = kernels.get(variants.PLAIN)
	except LabError as e:
		progress(f'series: the check kernel of {commit[:12]} does not '
			 f'build ({e}); the per-commit builds say where')
		return None
	got: List[Verdict] = []
	for boot in kunit.BOOTS:
		progress(f'series: KUnit {boot.prefix} boot of {commit[:12]}')
		_, run = kunit.run_kunit(kunit.KunitRun(
			wt.worktree, cache, base, results / boot.prefix,
			results / f'{boot.prefix}.log',
			kunit.exec_args(image.build, boot), jobs),
			boot.prefix, boot.may_skip)
		got += run
	return judge_suites(wanted, got, kunit.BOOTS, 'series')
