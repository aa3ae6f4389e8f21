#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs from scenarios, and real lava-run logs judged by the lab."""

import re
import unittest
from pathlib import Path

from hiblab.lab import judge, qemu, scenarios
from hiblab.lava import jobs

DATA = Path(__file__).resolve().parent / 'test_data'
URL = 'file:///srv/artifacts'


def every_job():
	for base in ('6.12', '7.3'):
		for s in scenarios.for_base(base):
			yield s, jobs.job(s, base, 'tcg',
					      jobs.artifacts(s, URL))


def steps(job: dict):
	for a in job['actions']:
		for script in a.get('test', {}).get('interactive', []):
			yield from script['script']


class JobTest(unittest.TestCase):
	def test_every_scenario_is_a_valid_job(self) -> None:
		for s, job in every_job():
			with self.subTest(s.name):
				self.assertEqual(jobs.validate(job), '')
				boots = [a for a in job['actions'] if 'boot' in a]
				self.assertEqual(len(boots), judge.boots_wanted(s))

	def test_a_test_outlasting_the_job_is_refused(self) -> None:
		_, job = next(every_job())
		self.assertIn('timeout is larger than job timeout',
			      jobs.validate(jobs.broken(job)))
		# The copy only: the job itself is untouched.
		self.assertEqual(jobs.validate(job), '')

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
				got = dict(jobs.options(argv))	# last -m wins
				want = dict(o for o in jobs.options(
					jobs._argv(s, 'tcg', mode))
					    if o[0] not in jobs.LOCAL_ONLY)
				want['-append'] = qemu.kernel_cmdline(s, mode,
									  lava=True)
				want['-kernel'], want['-initrd'] = '{kernel}', '{ramdisk}'
				want['-drive'] = 'file={disk},format=raw,if=virtio'
				with self.subTest(s.name, mode=mode):
					self.assertEqual(got, want)

	def test_artifacts_follow_the_builds(self) -> None:
		s = scenarios.SCENARIOS['other-restore-kernel']
		a = jobs.artifacts(s, URL)
		self.assertEqual(a.image_kernel, f'{URL}/plain/bzImage')
		self.assertEqual(a.restore_kernel, f'{URL}/lockdep-trace/bzImage')
		self.assertEqual(a.swap, f'{URL}/swap-1024M.img.xz')


if __name__ == '__main__':
	unittest.main()
