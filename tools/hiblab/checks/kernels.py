# SPDX-License-Identifier: GPL-2.0
"""The checks of the topic's kernels: KUnit and the static checks on the
check kernel, the lab's smoke cycle, every variant built, the gauntlets."""

import dataclasses
import time
from typing import List

from hiblab import paths
from hiblab.base import overlay
from hiblab.checks.context import Context
from hiblab.errors import LabError
from hiblab.gauntlet import mutants, run as gauntlet
from hiblab.kernel import kunit, static, variants
from hiblab.lab import runner, scenarios
from hiblab.verdict import FAIL, PASS, SKIP, Verdict

def check_kunit(ctx: Context) -> List[Verdict]:
	"""Our suites in the check kernel, booted each way of kunit.BOOTS by
	kunit_tool (exec on the check kernel's build directory); then the
	static checks of that kernel."""
	kernels = ctx.check_kernels()
	image = kernels.get(variants.PLAIN)
	verdicts = []
	for boot in kunit.BOOTS:
		_, run = kunit.run_kunit(kunit.KunitRun(
			kernels.req.tree, ctx.req.cache, ctx.base,
			ctx.results / boot.prefix, ctx.log(boot.prefix),
			kunit.exec_args(image.build, boot), ctx.req.jobs),
			boot.prefix, boot.may_skip)
		verdicts += run
	# The check kernel has HIBERNATION and tracepoints: the static checks
	# read it, as the gauntlet does for each mutant.
	return verdicts + static.run_all(image.build / 'vmlinux',
					     ctx.results / 'static')


# make test's lab cycles: the main job's, and (LAB_ACROSS_KERNELS) an image
# crossing a kernel update each way between Debian's own kernel of the base
# and the series' (hibernate, upgrade, resume: the cells that guard the
# image format between kernels; Debian's header code is the code before
# the paging-level fix, so they cross that change too).  Not a check of
# its own: the name by which a run's skip list leaves the second out.
LAB_SCENARIOS = ('smoke',)
LAB_ACROSS_KERNELS = 'lab-across-kernels'
ACROSS_KERNEL_SCENARIOS = ('debian-to-topic', 'topic-to-debian')


def check_lab(ctx: Context) -> List[Verdict]:
	"""The main job: make qemu-hibernate's smoke cycle, and unless the
	run skips them the cycles across a kernel update, on the check
	kernel the KUnit check booted."""
	kernels = ctx.check_kernels()
	names = LAB_SCENARIOS
	if LAB_ACROSS_KERNELS not in ctx.req.skip.get(ctx.base, []):
		names += ACROSS_KERNEL_SCENARIOS
	with ctx.log('lab').open('w') as f:
		verdicts = runner.run_lab(runner.LabRequest(
			kernels.req.tree, paths.CHECK_VARIANT, ctx.base, ctx.req.cache,
			ctx.results / 'lab',
			[scenarios.SCENARIOS[n] for n in names], 'auto',
			ctx.req.jobs),
			lambda s: print(s, file=f, flush=True), kernels).verdicts
	return [dataclasses.replace(v, name='lab/' + v.name) for v in verdicts]


def _variant_builds(ctx: Context) -> List[variants.Build]:
	"""The variant kernels the base's scenarios boot (Debian's shipped
	kernel is not built: the lab fetches it; another base's series
	kernel is that base's check kernel)."""
	builds = {b.on(ctx.base) for s in scenarios.for_base(ctx.base)
		  for b in (s.build, s.restore)
		  if not b.shipped and not b.series_of} - \
		{variants.PLAIN}
	return sorted(builds, key=lambda b: b.name)


def _build_verdict(kernels: variants.Kernels, build: variants.Build,
		   name: str) -> Verdict:
	start = time.monotonic()
	try:
		image = kernels.get(build)
	except LabError as e:
		return Verdict(name, FAIL, str(e))
	return Verdict(name, PASS, f'built in {time.monotonic() - start:.0f}s '
		       f'({image.build.name})')


def check_variants(ctx: Context) -> List[Verdict]:
	"""Every variant kernel a scenario of the base boots: a patch variant
	applies and builds (in the check worktree, from a copy of the check
	kernel's build: its files and their dependents compile), a config
	variant's options all take.  So a variant that stops applying,
	building or configuring fails here, not in a later lab matrix."""
	kernels = ctx.check_kernels()
	verdicts = []
	for build in _variant_builds(ctx):
		name = f'variants/{build.name}'
		if build.patch:
			verdicts.append(_build_verdict(kernels, build, name))
			continue
		why = kernels.configure(build)
		verdicts.append(Verdict(name, FAIL, why) if why else Verdict(
			name, PASS, 'configured; config-variants builds it'))
	return verdicts or [Verdict('variants', SKIP, 'no scenario of '
				    f'{ctx.base} boots a variant')]


def check_config_variants(ctx: Context) -> List[Verdict]:
	"""Every config variant a scenario boots, built: a whole kernel each
	(another autoconf.h, so ccache helps only from the second run)."""
	kernels = ctx.check_kernels()
	verdicts = [_build_verdict(kernels, b, f'config-variants/{b.name}')
		    for b in _variant_builds(ctx) if not b.patch]
	return verdicts or [Verdict('config-variants', SKIP, 'no scenario of '
				    f'{ctx.base} boots a config variant')]


# The KUnit gauntlet's lanes (gauntlet.run): a mutant's link and one-vCPU
# boot each keep one core busy.
KUNIT_LANES = 2


def check_mutants(ctx: Context) -> List[Verdict]:
	"""The mutants that KUnit and the static checks judge must be killed;
	the baseline must pass."""
	return _gauntlet(ctx, 'mutants', lab=False)


def check_lab_mutants(ctx: Context) -> List[Verdict]:
	"""The mutants a lab cycle judges (a guest build and boot each)."""
	return _gauntlet(ctx, 'lab-mutants', lab=True)


def _gauntlet(ctx: Context, name: str, lab: bool) -> List[Verdict]:
	"""Every mutant of mutants/<base>/ of one kind must be killed."""
	tree = ctx.need_tree()
	base_mutants = [m for m in mutants.read_mutants(
		paths.mutant_dir(ctx.req.repo, ctx.base))
		if mutants.needs_lab(m) == lab]
	if not base_mutants:
		return [Verdict(name, SKIP, f'no such mutant in mutants/{ctx.base}/')]
	results = ctx.results / name
	with ctx.log(name).open('w') as f:
		# Two lanes for the KUnit mutants; the lab's one at a time: a
		# cycle slowed by another lane's build must not pass for a kill.
		baseline, outcome = gauntlet.run_gauntlet(
			gauntlet.GauntletRequest(
				tree.git, tree.git.rev(overlay.TOPIC), ctx.base,
				ctx.req.cache, results, ctx.req.jobs,
				lanes=1 if lab else KUNIT_LANES), base_mutants,
			progress=lambda s: print(s, file=f, flush=True))
	(results / 'kill-matrix.txt').write_text(
		mutants.kill_matrix(outcome) if outcome else '')
	bad = [v for v in baseline if v.status == FAIL]
	verdicts = [Verdict(f'{name}-baseline', FAIL if bad or not baseline
			    else PASS, '; '.join(v.line() for v in bad) or
			    f'{len(baseline)} suite(s) pass unmutated')]
	return verdicts + [r.verdict() for r in outcome]
