#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Real lava-run logs (test_data/README) judged by the lab's judges."""

import shutil
import tempfile
import unittest
from pathlib import Path

from hiblab.lab import judge, judge_test, scenarios
from hiblab.lava import logs
from hiblab.verdict import FAIL, PASS

DATA = Path(__file__).resolve().parent / 'test_data'


class LogTest(unittest.TestCase):
	"""Captured lava-run logs (test_data/lava/README)."""

	def judge_log(self, name: str, scenario: str):
		s = scenarios.SCENARIOS[scenario]
		log = logs.read_log((DATA / f'{name}.log').read_text())
		tmp = Path(tempfile.mkdtemp())
		self.addCleanup(shutil.rmtree, tmp)
		record = logs.cycle_record(s, log, tmp, 20.0)
		return record, judge_test.without_cpu_state(
			record, {v.name: v for v in judge.judge_cycle(s, record)})

	def test_smoke_is_judged_green_like_a_local_run(self) -> None:
		record, v = self.judge_log('6.12-smoke', 'smoke')
		self.assertEqual([b.name for b in record.boots],
				 ['boot1-image', 'boot2-restore'])
		self.assertEqual(set(v), {'image-saved', 'restored', 'kaslr',
					  'pattern', 'tmpfs', 'cpus', 'workers',
					  'no-splat'})
		self.assertTrue(all(x.status == PASS for x in v.values()), v)
		self.assertIsNone(record.boots[1].vcpus)	# no gdbstub
		self.assertEqual(logs.not_run(scenarios.SCENARIOS[
			'smoke'])[0].name, 'hlt-parking')

	def test_refusal_with_the_agents_damage(self) -> None:
		record, v = self.judge_log('6.12-corrupt-header', 'corrupt-header')
		self.assertIn('what=header', record.corruption)
		for name in ('refused', 'fresh-boot', 'swap-reusable'):
			self.assertEqual(v[name].status, PASS, v[name])
		self.assertIn('Unrecognized hibernate image header',
			      v['refused'].detail)

	def test_mutants_killed_through_lava_run(self) -> None:
		_, v = self.judge_log('6.12-mutant-header-magic-check-removed',
				  'corrupt-header')
		self.assertEqual(v['refused'].status, FAIL)
		_, v = self.judge_log('6.12-mutant-lab-corrupt-one-restored-page',
				  'smoke')
		self.assertEqual(v['pattern'].status, FAIL)

	def test_a_job_lava_stopped_is_a_cycle_failure(self) -> None:
		record, v = self.judge_log('6.12-smt-nosmt-lava-bug', 'smt-nosmt')
		self.assertEqual(len(record.boots), 1)
		self.assertEqual(v['image-saved'].status, PASS)
		self.assertEqual(v['cycle'].status, FAIL)
		self.assertIn('(Bug error): Could not terminate the child',
			      v['cycle'].detail)

	def test_a_job_that_booted_nothing_fails(self) -> None:
		s = scenarios.SCENARIOS['smoke']
		log = logs.read_log(
			'{"dt": "x", "lvl": "results", "msg": {"case": "job", '
			'"definition": "lava", "error_msg": "Constant failure_retry '
			'does not exist", "error_type": "Configuration", "result": '
			'"fail"}}\n')
		tmp = Path(tempfile.mkdtemp())
		self.addCleanup(shutil.rmtree, tmp)
		v = judge.judge_cycle(s, logs.cycle_record(s, log, tmp, 1))
		self.assertEqual([(x.name, x.status) for x in v],
				 [('cycle', FAIL)])
		self.assertIn('Configuration error): Constant failure_retry',
			      v[0].detail)


if __name__ == '__main__':
	unittest.main()
