# SPDX-License-Identifier: GPL-2.0
"""make series inside make test: every series of the base, rehearsed."""

from typing import List

from hiblab.base import overlay
from hiblab.checks.context import Context
from hiblab.series import catalog, series
from hiblab.series.mutants import read_series_mutants
from hiblab.series.request import SeriesRequest
from hiblab.verdict import Verdict

# Not checks of their own: the names by which a run's skip list leaves
# out the series' per-commit builds, and the series mutants (checks/run.py's
# CI_SKIP).
SERIES_BUILDS = 'series-builds'
SERIES_MUTANTS = 'series-mutants'
HELD_SERIES_STACKS = 'held-series-stacks'


def check_series(ctx: Context) -> List[Verdict]:
	"""make series (mails only, never sent) for every series of the
	base, each on its own stack (the independence check: its patches and
	KUnit suites on the pristine base and its declared prerequisites
	only), then each series mutant must stop its series at the check it
	names.  Every commit is built with the
	check kernel's configuration (the guest's with our KUnit suites), in
	its build directory: incremental from the topic; `make series` also
	builds the guest configuration alone before a send.  A rehearsal:
	CI has no git identity, so the mails are signed off by
	REHEARSAL_SENDER (series/identity.py, an .invalid address), written under
	series/rehearsal-not-for-sending/ with NOT-FOR-SENDING in their
	subjects, from branches of their own in the worktree every series not
	for sending shares (series-scratch-<base>).
	Where the run skips SERIES_BUILDS for the base, the per-commit
	builds and the series mutants that stop at one are left out; the
	KUnit suites on each series' own stack still run.  SERIES_MUTANTS
	leaves out the series mutants; HELD_SERIES_STACKS the KUnit suites
	and builds of a series with Hold: on its own stack."""
	skip = ctx.req.skip.get(ctx.base, [])
	tree = ctx.need_tree()
	req = SeriesRequest(
		tree.git, tree.base, tree.git.rev(overlay.TOPIC), ctx.req.cache,
		ctx.req.repo, ctx.results / 'series', ctx.req.jobs,
		base_name=ctx.base, configs=('kunit',), rehearsal=True,
		builds=SERIES_BUILDS not in skip,
		held_stacks=HELD_SERIES_STACKS not in skip)
	with ctx.log('series').open('w') as f:
		def progress(s: str) -> None:
			print(s, file=f, flush=True)
		steps = len(overlay.read_steps(tree.overlay(ctx.req.repo)))
		found = catalog.read_catalog(ctx.req.repo, ctx.base, steps)
		verdicts = series.run_base(req, found, progress=progress)
		series_mutants = [] if SERIES_MUTANTS in skip else \
			read_series_mutants(ctx.req.repo, ctx.base)
		verdicts += series.run_series_mutants(req, found, series_mutants,
						      progress)
	return verdicts
