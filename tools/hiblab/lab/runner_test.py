#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A lab run builds every kernel first; a scenario whose kernel does not
build is its one FAIL, the others run (the gauntlet's strict runs stop)."""

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab.errors import LabError
from hiblab.kernel import variants
from hiblab.lab import records, runner, scenarios
from hiblab.verdict import PASS, Verdict


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


class RunLabTest(unittest.TestCase):
	def run_lab(self, strict: bool) -> tuple:
		kernels = FakeKernels(variants.FOREIGN_RESTORE_MAGIC)
		lines = []
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(runner, 'Cycle', FakeCycle), \
		     mock.patch.object(runner.guest, 'require_tools', lambda: None), \
		     mock.patch.object(runner.report, 'write',
				       lambda *a: Path(tmp) / 'report.html'):
			run = runner.run_lab(runner.LabRequest(
				Path('/t'), 'topic', '7.3', Path('/c'), Path(tmp),
				[scenarios.SCENARIOS[n] for n in
				 ('foreign-magic', 'smoke')], 'tcg', 1, strict),
				lines.append, kernels)
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

	def test_a_strict_run_stops_at_the_build(self) -> None:
		with self.assertRaisesRegex(LabError, 'no longer applies'):
			self.run_lab(strict=True)


if __name__ == '__main__':
	unittest.main()
