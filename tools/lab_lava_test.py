#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs from scenarios, and real lava-run logs judged by the lab."""

import re
import shutil
import tempfile
import unittest
from pathlib import Path

import lab_judge
import lab_lava
import lab_qemu
import lab_scenarios
from lab_verdict import FAIL, PASS

DATA = Path(__file__).resolve().parent / 'test_data' / 'lava'
URL = 'file:///srv/artifacts'


def every_job():
	for base in ('6.12', '7.3'):
		for s in lab_scenarios.for_base(base):
			yield s, lab_lava.job(s, base, 'tcg',
					      lab_lava.artifacts(s, URL))


def steps(job: dict):
	for a in job['actions']:
		for script in a.get('test', {}).get('interactive', []):
			yield from script['script']


class JobTest(unittest.TestCase):
	def test_every_scenario_is_a_valid_job(self) -> None:
		for s, job in every_job():
			with self.subTest(s.name):
				self.assertEqual(lab_lava.validate(job), '')
				boots = [a for a in job['actions'] if 'boot' in a]
				self.assertEqual(len(boots), lab_judge.boots_wanted(s))

	def test_a_test_outlasting_the_job_is_refused(self) -> None:
		_, job = next(every_job())
		self.assertIn('timeout is larger than job timeout',
			      lab_lava.validate(lab_lava.broken(job)))
		# The copy only: the job itself is untouched.
		self.assertEqual(lab_lava.validate(job), '')

	def test_no_failure_pattern_matches_its_success_line(self) -> None:
		"""LAVA looks for failures first: a failure pattern that also
		matches the success line fails every good run (the first
		version's 'HIBLAB resumed' did, on a real lava-run)."""
		for s, job in every_job():
			for step in steps(job):
				for ok in step['successes']:
					for f in step['failures']:
						self.assertIsNone(
							re.search(f['message'], ok['message']),
							f'{s.name}/{step["name"]}: "{f["message"]}"')
		self.assertTrue(re.search('HIBLAB resumed',
					  'HIBLAB resumed round=1 ret=0'))

	def test_the_lava_command_line_is_the_local_one(self) -> None:
		"""Template options + context + image_args give the local
		lab's QEMU options, less its own plumbing (second UART,
		-nodefaults, gdbstub), with the agent's LAVA parameters."""
		for s, job in every_job():
			ctx = job['context']
			deploys = [a['deploy']['images'] for a in job['actions']
				   if 'deploy' in a]
			for mode, images in zip(['image'] + ['restore'] * 9, deploys):
				argv = ['qemu', '-nographic', '-m', str(ctx['memory']),
					'-monitor', 'none']
				for o in ctx['extra_options']:
					argv += o.split(' ', 1)
				arg = images['kernel']['image_arg']
				head, _, cmdline = arg.partition(' -append ')
				argv += head.split() + ['-append', cmdline.strip('"')]
				argv += images['ramdisk']['image_arg'].split()
				argv += deploys[0]['disk']['image_arg'].split()
				got = dict(lab_lava.options(argv))	# last -m wins
				want = dict(o for o in lab_lava.options(
					lab_lava._argv(s, 'tcg', mode))
					    if o[0] not in lab_lava.LOCAL_ONLY)
				want['-append'] = lab_qemu.kernel_cmdline(s, mode,
									  lava=True)
				want['-kernel'], want['-initrd'] = '{kernel}', '{ramdisk}'
				want['-drive'] = 'file={disk},format=raw,if=virtio'
				with self.subTest(s.name, mode=mode):
					self.assertEqual(got, want)

	def test_artifacts_follow_the_builds(self) -> None:
		s = lab_scenarios.SCENARIOS['other-restore-kernel']
		a = lab_lava.artifacts(s, URL)
		self.assertEqual(a.image_kernel, f'{URL}/plain/bzImage')
		self.assertEqual(a.restore_kernel, f'{URL}/lockdep-trace/bzImage')
		self.assertEqual(a.swap, f'{URL}/swap-1024M.img.xz')


class LogTest(unittest.TestCase):
	"""Captured lava-run logs (test_data/lava/README)."""

	def judge(self, name: str, scenario: str):
		s = lab_scenarios.SCENARIOS[scenario]
		log = lab_lava.read_log((DATA / f'{name}.log').read_text())
		tmp = Path(tempfile.mkdtemp())
		self.addCleanup(shutil.rmtree, tmp)
		record = lab_lava.cycle_record(s, log, tmp, 20.0)
		return record, {v.name: v for v in
				lab_judge.judge_cycle(s, record)}

	def test_smoke_is_judged_green_like_a_local_run(self) -> None:
		record, v = self.judge('6.12-smoke', 'smoke')
		self.assertEqual([b.name for b in record.boots],
				 ['boot1-image', 'boot2-restore'])
		self.assertEqual(set(v), {'image-saved', 'restored', 'kaslr',
					  'pattern', 'tmpfs', 'cpus', 'workers',
					  'no-splat'})
		self.assertTrue(all(x.status == PASS for x in v.values()), v)
		self.assertIsNone(record.boots[1].vcpus)	# no gdbstub
		self.assertEqual(lab_lava.not_run(lab_scenarios.SCENARIOS[
			'smoke'])[0].name, 'hlt-parking')

	def test_refusal_with_the_agents_damage(self) -> None:
		record, v = self.judge('6.12-corrupt-header', 'corrupt-header')
		self.assertIn('what=header', record.corruption)
		for name in ('refused', 'fresh-boot', 'swap-reusable'):
			self.assertEqual(v[name].status, PASS, v[name])
		self.assertIn('Unrecognized hibernate image header',
			      v['refused'].detail)

	def test_mutants_killed_through_lava_run(self) -> None:
		_, v = self.judge('6.12-mutant-header-magic-check-removed',
				  'corrupt-header')
		self.assertEqual(v['refused'].status, FAIL)
		_, v = self.judge('6.12-mutant-lab-corrupt-one-restored-page',
				  'smoke')
		self.assertEqual(v['pattern'].status, FAIL)

	def test_a_job_lava_stopped_is_a_cycle_failure(self) -> None:
		record, v = self.judge('6.12-smt-nosmt-lava-bug', 'smt-nosmt')
		self.assertEqual(len(record.boots), 1)
		self.assertEqual(v['image-saved'].status, PASS)
		self.assertEqual(v['cycle'].status, FAIL)
		self.assertIn('(Bug error): Could not terminate the child',
			      v['cycle'].detail)

	def test_a_job_that_booted_nothing_fails(self) -> None:
		s = lab_scenarios.SCENARIOS['smoke']
		log = lab_lava.read_log(
			'{"dt": "x", "lvl": "results", "msg": {"case": "job", '
			'"definition": "lava", "error_msg": "Constant failure_retry '
			'does not exist", "error_type": "Configuration", "result": '
			'"fail"}}\n')
		tmp = Path(tempfile.mkdtemp())
		self.addCleanup(shutil.rmtree, tmp)
		v = lab_judge.judge_cycle(s, lab_lava.cycle_record(s, log, tmp, 1))
		self.assertEqual([(x.name, x.status) for x in v],
				 [('cycle', FAIL)])
		self.assertIn('Configuration error): Constant failure_retry',
			      v[0].detail)


if __name__ == '__main__':
	unittest.main()
