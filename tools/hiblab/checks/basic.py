# SPDX-License-Identifier: GPL-2.0
"""The checks that need no kernel build: the host tests, the tree and its
round trip, the mutants applying, the LAVA jobs."""

import dataclasses
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

from hiblab import paths
from hiblab.base import kernel_tree, overlay
from hiblab.checks.context import Context
from hiblab.gauntlet import mutants
from hiblab.lava import jobs
from hiblab.verdict import FAIL, PASS, SKIP, Verdict

def check_host_unit_tests(ctx: Context) -> Verdict:
	"""The tools' own unit tests: fake base, fake steps, no kernel."""
	log = ctx.log('host-unit-tests')
	with log.open('w') as f:
		rc = subprocess.run([sys.executable, '-m', 'unittest', 'discover',
				     '-s', str(ctx.req.repo / 'tools'), '-p',
				     '*_test.py'], stdout=f, stderr=subprocess.STDOUT,
				    check=False).returncode
	text = log.read_text()
	m = re.search(r'^Ran (\d+) tests?', text, re.M)
	ran = int(m.group(1)) if m else 0
	if rc != 0 or ran == 0:
		tail = text.strip().splitlines()[-1:] or ['no output']
		return Verdict('host-unit-tests', FAIL,
			       f'{tail[0]} ({ran} ran; see {log})')
	return Verdict('host-unit-tests', PASS, f'{ran} tests')


def check_tree(ctx: Context) -> Verdict:
	"""Base import and topic branch, built the way `make tree` does."""
	log = ctx.log('tree')
	with log.open('w') as f:
		ctx.tree = kernel_tree.ensure_topic(
			kernel_tree.TreeRequest(ctx.req.repo, ctx.req.cache,
					     base=ctx.base),
			progress=lambda s: print(s, file=f, flush=True))
	git = ctx.tree.git
	topic = git.rev(overlay.TOPIC)
	steps = overlay.read_steps(ctx.tree.overlay(ctx.req.repo))
	again = overlay.build_commits(git, ctx.tree.base, steps)
	if git.tree_of(again) != git.tree_of(overlay.TOPIC):
		return Verdict('tree', FAIL, f'{overlay.TOPIC} '
			       f'{topic[:12]} is not what branch-overlay/ builds '
			       f'({again[:12]}); see {log}')
	return Verdict('tree', PASS, f'{len(steps)} step(s) on '
		       f'{ctx.tree.pin.tag}, {overlay.TOPIC} = {topic[:12]}')


def check_overlay_roundtrip(ctx: Context) -> Verdict:
	"""Export the topic branch and rebuild it: the tree must not change."""
	tree = ctx.need_tree()
	with tempfile.TemporaryDirectory(prefix='roundtrip-') as tmp:
		n = overlay.export_topic(tree.git, tree.base, Path(tmp),
					     progress=lambda s: None,
					     mark_synced=False)
		rebuilt = overlay.build_commits(
			tree.git, tree.base, overlay.read_steps(Path(tmp)))
	want = tree.git.tree_of(overlay.TOPIC)
	got = tree.git.tree_of(rebuilt)
	if got != want:
		return Verdict('overlay-roundtrip', FAIL,
			       f'export+rebuild gives tree {got[:12]}, '
			       f'{overlay.TOPIC} has {want[:12]}')
	return Verdict('overlay-roundtrip', PASS,
		       f'{n} step(s), tree {want[:12]} reproduced')


def check_mutants_apply(ctx: Context) -> Verdict:
	"""Every mutant of the base applies to the topic branch and names
	checks that exist: found in seconds, not after a gauntlet's
	baseline build."""
	tree = ctx.need_tree()
	base_mutants = mutants.read_mutants(
		paths.mutant_dir(ctx.req.repo, ctx.base))
	if not base_mutants:
		return Verdict('mutants-apply', SKIP,
			       f'no mutant in mutants/{ctx.base}/')
	mutants.check_names(base_mutants, ctx.req.repo, ctx.base)
	topic = tree.git.rev(overlay.TOPIC)
	with tempfile.TemporaryDirectory(prefix='mutants-apply-') as tmp:
		bad = mutants.not_applying(tree.git, topic, base_mutants,
					       Path(tmp) / 'index')
	if bad:
		return Verdict('mutants-apply', FAIL,
			       f'{", ".join(bad)} no longer appl'
			       f'{"ies" if len(bad) == 1 else "y"} to '
			       f'{overlay.TOPIC} {topic[:12]}: regenerate '
			       f'against the series (mutants/{ctx.base}/)')
	return Verdict('mutants-apply', PASS, f'{len(base_mutants)} mutant(s) '
		       f'apply to {overlay.TOPIC} {topic[:12]}')


def check_lava_jobs(ctx: Context) -> List[Verdict]:
	"""Every scenario of the base as a LAVA job (make lava-jobs' generator,
	artifact URLs as it lays them out), validated offline with
	lava-common's strict schema; a broken copy must be refused."""
	out = ctx.results / 'lava-jobs'
	out.mkdir(parents=True, exist_ok=True)
	url = 'file://' + str(paths.results_dir(ctx.req.repo) /
			      'lava-jobs' / 'artifacts')
	job_files = []
	for s in jobs.for_base(ctx.base):
		path = out / f'{s.name}.yaml'
		path.write_text(jobs.dump(jobs.job(
			s, ctx.base, 'tcg', jobs.artifacts(s, url))))
		job_files.append(path)
	return [dataclasses.replace(v, name=f'lava/{v.name}')
		for v in jobs.check_files(job_files)]
