#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A lab run builds every kernel first; a scenario whose kernel does not
build is its one FAIL, the others run (the gauntlet's strict runs stop)."""

import dataclasses
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab.errors import LabError
from hiblab.kernel import variants
from hiblab.lab import records, runner, scenarios
from hiblab.verdict import FAIL, PASS, Verdict


class FakeKernels:
	"""variants.Kernels with a variant that does not build."""

	def __init__(self, broken: variants.Build) -> None:
		self.req = variants.KernelsRequest(Path('/t'), 'topic', '7.3',
						   Path('/c'), 1)
		self.broken = broken
		self.built, self.failed, self.tried = {}, {}, []

	def get(self, build):
		self.tried.append(build.name)
		if build == self.broken:
			self.failed[build] = 'lab variant foreign-restore-magic ' \
				'no longer applies'
			raise LabError(self.failed[build])
		self.built[build] = f'image of {build.name}'
		return self.built[build]

	def problem(self, build):
		return self.failed.get(build, '')


class FakeCycle:
	def __init__(self, req) -> None:
		self.req = req
		self.record = records.CycleRecord(req.scenario.name, 'tcg', [],
						  seconds=1.0)

	def run(self):
		return [Verdict('restored', PASS, self.req.image)]


CYCLES = Path(__file__).parent / 'test_data' / 'cycles'


class RacingCycle:
	"""Runs that return captured records: the restore kernel's stray
	int3 (6.12-topic-to-debian-int3) as often as RACES says, then a
	clean cycle."""
	RACES = 1
	runs = 0

	def __init__(self, req) -> None:
		type(self).runs += 1
		self.raced = type(self).runs <= self.RACES
		self.record = records.load(CYCLES / ('6.12-topic-to-debian-int3'
						     if self.raced else '6.12-smoke'))

	def run(self):
		return [Verdict('restore-boot', FAIL, 'agent not ready')] \
			if self.raced else [Verdict('restored', PASS, 'resumed')]


class RunLabTest(unittest.TestCase):
	def lab(self, cycle: type, req: runner.LabRequest, kernels,
		lines: list) -> runner.LabRun:
		"""run_lab with a fake cycle, no tools and no report; its results
		(req.results: /r) in a temporary directory, named /r in what it
		says."""
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(runner, 'Cycle', cycle), \
		     mock.patch.object(runner.guest, 'require_tools', lambda: None), \
		     mock.patch.object(runner.report, 'write',
				       lambda *a: Path(tmp) / 'report.html'):
			run = runner.run_lab(dataclasses.replace(req, results=Path(tmp)),
					     lambda l: lines.append(l.replace(tmp, '/r')),
					     kernels)
		run.verdicts = [dataclasses.replace(v, detail=v.detail.replace(
			tmp, '/r')) for v in run.verdicts]
		return run

	def run_lab(self, strict: bool) -> tuple:
		kernels = FakeKernels(variants.FOREIGN_RESTORE_MAGIC)
		lines = []
		run = self.lab(FakeCycle, runner.LabRequest(
			Path('/t'), 'topic', '7.3', Path('/c'), Path('/r'),
			[scenarios.SCENARIOS[n] for n in ('foreign-magic', 'smoke')],
			'tcg', 1, strict), kernels, lines)
		return run, kernels, lines

	def test_a_broken_variant_fails_its_scenario_alone(self) -> None:
		run, kernels, lines = self.run_lab(strict=False)
		# Every kernel first: the plain one and the variant.
		self.assertEqual(kernels.tried[:3], ['plain', 'foreign-restore-magic',
						     'plain'])
		self.assertEqual([v.line() for v in run.verdicts], [
			'FAIL foreign-magic/guest-build: the restore kernel '
			'(foreign-restore-magic) did not build: lab variant '
			'foreign-restore-magic no longer applies',
			'PASS smoke/restored: image of plain'])
		self.assertIn('lab: foreign-restore-magic kernel: lab variant '
			      'foreign-restore-magic no longer applies', lines)

	def run_racing(self, races: int, accel: str = 'tcg') -> tuple:
		RacingCycle.RACES, RacingCycle.runs = races, 0
		lines = []
		run = self.lab(RacingCycle, runner.LabRequest(
			Path('/t'), 'topic', '6.12', Path('/c'), Path('/r'),
			[scenarios.SCENARIOS['topic-to-debian']], accel, 1),
			FakeKernels(variants.LOCKDEP_TRACE), lines)
		return [v.line() for v in run.verdicts], lines

	def test_a_stray_int3_before_the_agent_runs_the_cycle_again(self) -> None:
		race = ('run 1 (/r/topic-to-debian-1) lost boot2-restore: [    '
			'1.316130] Oops: int3: 0000 [#1] PREEMPT SMP PTI, [    '
			'1.316823] RIP: 0010:enqueue_timer+0xa5/0x100')
		verdicts, lines = self.run_racing(1)
		self.assertEqual(RacingCycle.runs, 2)
		self.assertEqual(verdicts, [
			f'PASS topic-to-debian/restored: resumed (run 2; {race}: a '
			'text-patching race of TCG before the agent started)'])
		self.assertIn(f'lab: topic-to-debian: {race}: running it again',
			      lines)
		# Twice at most: a third race is judged, and fails.
		verdicts, _ = self.run_racing(2)
		self.assertEqual(RacingCycle.runs, 3)
		self.assertEqual(len(verdicts), 1)
		self.assertRegex(verdicts[0], r'^PASS topic-to-debian/restored: '
				 r'resumed \(run 3; run 1 .*; run 2 \(/r/topic-to-'
				 r'debian-2\) lost .*: a text-patching race of TCG '
				 r'before the agent started\)$')
		verdicts, _ = self.run_racing(3)
		self.assertEqual(RacingCycle.runs, 3)
		self.assertTrue(verdicts[0].startswith(
			'FAIL topic-to-debian/restore-boot: agent not ready (run 3; '))
		# Not under KVM: there it is not TCG's.
		verdicts, _ = self.run_racing(1, accel='kvm')
		self.assertEqual(RacingCycle.runs, 1)
		self.assertEqual(verdicts, ['FAIL topic-to-debian/restore-boot: '
					    'agent not ready'])

	def test_a_strict_run_stops_at_the_build(self) -> None:
		with self.assertRaisesRegex(LabError, 'no longer applies'):
			self.run_lab(strict=True)


if __name__ == '__main__':
	unittest.main()
