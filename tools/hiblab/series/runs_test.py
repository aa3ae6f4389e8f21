#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A run killed at its timeout, and every judge naming what hung."""

import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.series import b4, builds, checkpatch, runs
from hiblab.series.builds import BuildRun
from hiblab.series.captures import RUN, logged_runs
from hiblab.series.checkpatch import CheckpatchRun
from hiblab.series.runs import Run


class TimeoutTest(unittest.TestCase):
	"""A run killed at its timeout is one line naming it, not a
	traceback and not a finding about the series."""

	def test_a_hung_process_is_recorded(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			log = Path(tmp) / 'b4.log'
			run = runs.run_logged(
				['sh', '-c', 'echo started; exec sleep 30'],
				Path(tmp), log, timeout=1)
			self.assertTrue(run.timed_out)
			self.assertEqual(run.output, 'started\n')
			self.assertIn('[killed: timed out after 1 s]',
				      log.read_text())
			with self.assertRaises(LabError) as e:
				b4.judge_b4(run, 'send -o')
			self.assertEqual(str(e.exception).count('\n'), 0)
			self.assertRegex(str(e.exception), r'^b4 send -o timed out '
					 r'after 1 s: see the end of .*b4.log')

	def test_every_judge_of_a_run_names_what_hung(self) -> None:
		hung = Run(('make', '-C', '/t', 'O=/b', '-j2', 'vmlinux'), -1,
			   '  CC      init/main.o\n', Path('/r/build-guest.log'),
			   timed_out=True)
		b = BuildRun(2, 'c' * 40, 's', 'guest', (), (logged_runs(
			RUN / 'build-guest.log')[0], hung))
		with self.assertRaisesRegex(LabError, r'^make vmlinux of commit 2 '
					    r'\(guest config\) timed out after '
					    r'1800 s: see the end of '
					    r'/r/build-guest.log'):
			builds.judge_build(b)
		with self.assertRaisesRegex(LabError, r'^checkpatch.pl on '
					    r'0003-x.patch timed out'):
			checkpatch.judge_checkpatch(
				[CheckpatchRun(Path('/p/0003-x.patch'), hung)], {})


if __name__ == '__main__':
	unittest.main()
