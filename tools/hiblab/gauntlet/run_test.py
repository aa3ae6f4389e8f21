#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The gauntlet's order: cheapest stage first, a mutant up to its first
kill, every stage with --full-matrix or for the baseline."""

import threading
import time
import unittest
from pathlib import Path
from typing import List
from unittest import mock

from hiblab.gauntlet import mutants, run
from hiblab.kernel import kunit
from hiblab.verdict import FAIL, PASS, Verdict


class FakeChecks:
	"""TreeChecks' stages, each returning fixed verdicts."""

	def __init__(self, full_matrix: bool, outcomes: dict) -> None:
		self.req = run.GauntletRequest(None, 'c', '7.3', Path('/c'),
					       Path('/r'), 1, full_matrix)
		self.logs = Path('/r/m')
		self.outcomes = outcomes
		self.ran: List[str] = []

	def progress(self, line: str) -> None:
		pass

	def stages(self, boots, lab):
		names = ['static'] + [b.prefix for b in boots] + \
			[mutants.LAB_PREFIX + n for n in lab]
		for name in names:
			yield name, lambda n=name: self._run(n)

	def _run(self, name: str) -> List[Verdict]:
		self.ran.append(name)
		return [Verdict(f'{name}/x', status) for status in
			self.outcomes.get(name, [PASS])]


MUTANT = mutants.Mutant('m', Path('m.patch'), 'a bug',
			('kunit/x', 'lab/smoke/x'))
BOOTS = list(kunit.BOOTS)


class RunStagesTest(unittest.TestCase):
	def test_a_mutant_stops_at_its_first_kill(self) -> None:
		checks = FakeChecks(False, {'kunit': [FAIL]})
		got = run.run_stages(checks, BOOTS, ['smoke'], MUTANT)
		self.assertEqual(checks.ran, ['static', 'kunit'])
		self.assertEqual([v.name for v in got if v.status == FAIL],
				 ['kunit/x'])

	def test_a_failure_it_does_not_name_goes_on(self) -> None:
		checks = FakeChecks(False, {'static': [FAIL],
					    'lab/smoke': [FAIL]})
		run.run_stages(checks, BOOTS, ['smoke'], MUTANT)
		self.assertEqual(checks.ran, ['static', 'kunit', 'kunit-la57',
					      'kunit-pti', 'lab/smoke'])

	def test_full_matrix_and_baseline_run_every_stage(self) -> None:
		for full, mutant in ((True, MUTANT), (False, None)):
			checks = FakeChecks(full, {'kunit': [FAIL]})
			run.run_stages(checks, BOOTS, ['smoke'], mutant)
			with self.subTest(full_matrix=full):
				self.assertEqual(len(checks.ran), 5)

	def test_boots_a_mutant_needs(self) -> None:
		m = mutants.Mutant('m', Path('m.patch'), 'a bug',
				   ('kunit-pti/x86_ident_map',))
		self.assertEqual([b.prefix for b in run.boots_needed([m])],
				 ['kunit', 'kunit-pti'])


class MatrixTest(unittest.TestCase):
	def test_checks_a_killed_mutant_never_ran_are_dashes(self) -> None:
		stopped = mutants.MutantResult(MUTANT, ('kunit/x',), '',
					       ('static/a', 'kunit/x'))
		matrix = mutants.kill_matrix([stopped]).splitlines()
		self.assertEqual(matrix[0].split(), ['kunit/x', 'lab/smoke/x'])
		self.assertEqual(matrix[1].split(), ['m', 'X', '-', 'killed'])


class LanesTest(unittest.TestCase):
	def test_mutants_share_the_lanes_and_keep_their_order(self) -> None:
		req = run.GauntletRequest(None, 'c', '7.3', Path('/c'), Path('/r'),
					  2, lanes=2)
		ms = [mutants.Mutant(f'm{n}', Path(f'm{n}.patch'), 'a bug',
				     ('kunit/x',)) for n in range(5)]
		where = {}
		both = threading.Barrier(2, timeout=5)

		class Tree:
			def __init__(self, path: Path) -> None:
				self.worktree = path

		def judge(req, wt, m, say):
			where[m.name] = wt.worktree.name
			if m.name in ('m0', 'm1'):
				both.wait()	# two lanes at once, or this times out
			time.sleep(0.01)
			if m.name == 'm3':
				raise RuntimeError('a bug')
			return mutants.MutantResult(m, ('kunit/x',))
		with mock.patch.object(run, 'prepare_worktree',
				       lambda git, path, c: Tree(path)), \
		     mock.patch.object(run, 'apply', lambda wt, m: None), \
		     mock.patch.object(run, 'judge_mutant', judge):
			got = run.run_lanes(req, ms, lambda s: None)
		self.assertEqual([r.mutant.name for r in got],
				 [m.name for m in ms])
		self.assertEqual(set(where.values()),
				 {'check-7.3', 'check-lane2-7.3'})
		self.assertTrue(got[0].killed and got[4].killed)
		self.assertEqual(got[3].error, "stopped: RuntimeError('a bug')")

	def test_one_lane_is_the_check_worktree(self) -> None:
		req = run.GauntletRequest(None, 'c', '7.3', Path('/c'), Path('/r'),
					  2)
		self.assertEqual(run.lane_worktrees(req),
				 [Path('/c/worktrees/check-7.3')])


if __name__ == '__main__':
	unittest.main()
