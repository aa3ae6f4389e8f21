#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of cli: how every entry point ends (error, Ctrl-C, usage)."""

import contextlib
import io
import kunit
import lab
import mutants
import os
import qemu_hibernate
import series
import tempfile
import unittest
from pathlib import Path
from typing import Callable, List, Tuple
from unittest import mock

from hiblab import cli, lock, verdict
from hiblab.base import kernel_tree
from hiblab.errors import LabError


def capture(call: Callable[[], int]) -> Tuple[int, List[str], List[str]]:
	"""Exit status, stdout lines and stderr lines of call()."""
	out, err = io.StringIO(), io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
		rc = call()
	return rc, out.getvalue().splitlines(), err.getvalue().splitlines()


class CliTestCase(unittest.TestCase):
	"""A scratch repo (linux-base.txt, results/) and cache per test."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory(prefix='lab-cli-test-')
		self.addCleanup(tmp.cleanup)
		self.repo = Path(tmp.name) / 'repo'
		self.cache = Path(tmp.name) / 'cache'
		self.repo.mkdir()
		(self.repo / 'linux-base.txt').write_text(
			'[b1]\npackage = p\npackage_version = 1\ntarball = /t\n'
			f'sha256 = {"0" * 64}\nkernel_version = 1\n'
			'[b2]\npackage = q\npackage_version = 2\ntarball = /u\n'
			f'sha256 = {"1" * 64}\nkernel_version = 2\n')

	def run_body(self, body: Callable[[cli.Session], int]
		     ) -> Tuple[int, List[str], List[str]]:
		return capture(lambda: cli.run('tool', body, self.repo,
						   self.cache))


class RunTest(CliTestCase):
	def test_lab_error_is_one_line_and_the_verdict(self) -> None:
		def body(s: cli.Session) -> int:
			print('tool: working')
			raise LabError('the thing broke', 'do this')
		self.assertEqual(self.run_body(body), (
			1, ['tool: working', 'VERDICT tool: FAIL (see the error '
			    'above)'], ['error: the thing broke: do this']))

	def test_usage_error_is_exit_2_without_a_verdict(self) -> None:
		def body(s: cli.Session) -> int:
			raise cli.UsageError('unknown thing x', 'choose y')
		self.assertEqual(self.run_body(body),
				 (2, [], ['error: unknown thing x: choose y']))

	def test_ctrl_c_names_the_results_left_behind(self) -> None:
		made = []

		def body(s: cli.Session) -> int:
			s.lock()
			made.append(s.results('lab'))
			raise KeyboardInterrupt
		rc, out, err = self.run_body(body)
		self.assertEqual((rc, out), (130, []))
		self.assertEqual(err, [f'error: tool interrupted (Ctrl-C); '
				       f'partial results in {made[0]}'])
		self.assertTrue(made[0].is_dir())
		# The lock went with the run: the next one can start.
		with lock.CacheLock(self.cache):
			pass

	def test_ctrl_c_before_any_results_and_with_notes(self) -> None:
		def early(s: cli.Session) -> int:
			raise KeyboardInterrupt
		self.assertEqual(self.run_body(early), (130, [], [
			'error: tool interrupted (Ctrl-C); no results written']))

		def noted(s: cli.Session) -> int:
			s.leave(cli.scratch_note(s.cache))
			raise KeyboardInterrupt
		self.assertEqual(self.run_body(noted)[2], [
			'error: tool interrupted (Ctrl-C); no results written; '
			f'scratch worktrees in {self.cache / "worktrees"} (the next '
			'run resets them)'])

	def test_ctrl_c_in_the_tree_step_says_it_is_redone(self) -> None:
		def body(s: cli.Session) -> int:
			s.topic('b1')
			return 0
		with mock.patch.object(kernel_tree, 'ensure_topic',
				       side_effect=KeyboardInterrupt):
			self.assertEqual(self.run_body(body), (130, [], [
				'error: tool interrupted (Ctrl-C); no results written; '
				f'an unfinished tree step in {self.cache} (the next run '
				'redoes it)']))
		# Once the tree is up, the note is gone.
		def after(s: cli.Session) -> int:
			s.topic('b1')
			raise KeyboardInterrupt
		with mock.patch.object(kernel_tree, 'ensure_topic'):
			self.assertEqual(self.run_body(after)[2], [
				'error: tool interrupted (Ctrl-C); no results written'])

	def test_results_made_before_the_run_are_not_claimed(self) -> None:
		(self.repo / 'results' / 'old-run').mkdir(parents=True)

		def body(s: cli.Session) -> int:
			raise KeyboardInterrupt
		self.assertIn('no results written', self.run_body(body)[2][0])

	def test_status_passes_through_and_lock_is_released(self) -> None:
		def body(s: cli.Session) -> int:
			s.lock()
			s.lock()	# once is enough; not a second flock
			with self.assertRaisesRegex(LabError, 'in use by PID '
						    f'{os.getpid()}'):
				with lock.CacheLock(self.cache):
					pass
			return 7
		self.assertEqual(self.run_body(body), (7, [], []))
		with lock.CacheLock(self.cache):
			pass


class HelpersTest(CliTestCase):
	def test_pick_base(self) -> None:
		self.assertEqual(cli.pick_base(None, self.repo), 'b1')
		self.assertEqual(cli.pick_base('b2', self.repo), 'b2')
		with self.assertRaisesRegex(cli.UsageError, "unknown base "
					    "'b3': choose one of b1, b2"):
			cli.pick_base('b3', self.repo)

	def test_broken_pin_file_is_not_a_usage_error(self) -> None:
		(self.repo / 'linux-base.txt').write_text('[b1]\ncolor = red\n')
		with self.assertRaises(LabError) as cm:
			cli.pick_base('b3', self.repo)
		self.assertNotIsInstance(cm.exception, cli.UsageError)
		self.assertIn('bad line', str(cm.exception))

	def test_report_verdict_line_and_exit_code(self) -> None:
		vs = [verdict.Verdict('a', 'PASS'),
		      verdict.Verdict('b', 'SKIP', 'no kvm')]
		results = self.repo / 'r'
		rc, out, _ = capture(lambda: cli.report(vs, results))
		self.assertEqual((rc, out), (False, ['PASS a', 'SKIP b: no kvm']))
		self.assertIn('1 passed, 0 failed, 1 skipped',
			      (results / 'verdicts.json').read_text())
		self.assertEqual(cli.verdict_line('t', vs),
				 'VERDICT t: PASS (1 passed, 0 failed, 1 skipped)')
		self.assertEqual(cli.exit_code(vs), 0)
		vs.append(verdict.Verdict('c', 'FAIL', 'x'))
		self.assertTrue(capture(lambda: cli.report(vs))[0])
		self.assertEqual(cli.verdict_line('t', vs),
				 'VERDICT t: FAIL (1 passed, 1 failed, 1 skipped)')
		self.assertEqual(cli.exit_code(vs), 1)
		# No verdict at all is no PASS line either way: nothing failed.
		self.assertEqual(cli.verdict_line('t', []),
				 'VERDICT t: PASS (0 passed, 0 failed)')


# Every entry point, its argv, and its name in the VERDICT line.
ENTRY_POINTS = (
	(lab.main, ['tree'], 'lab tree'),
	(kunit.main, ['run', '--arch=x86_64'], 'kunit'),
	(mutants.main, [], 'mutants'),
	(series.main, [], 'series'),
	(qemu_hibernate.main, ['smoke'], 'qemu-hibernate'),
)


class EntryPointTest(unittest.TestCase):
	"""The five tools end the same way, whatever stops them where the
	tree is brought up (their first step that does real work)."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory(prefix='lab-cli-test-')
		self.addCleanup(tmp.cleanup)
		# series.py refuses a placeholder sender before the tree step:
		# a sender as git config in the environment gives it.
		env = mock.patch.dict(os.environ, {
			'HIBLAB_CACHE_DIR': tmp.name, 'GIT_CONFIG_COUNT': '2',
			'GIT_CONFIG_KEY_0': 'user.name',
			'GIT_CONFIG_VALUE_0': 'Jane Doe',
			'GIT_CONFIG_KEY_1': 'user.email',
			'GIT_CONFIG_VALUE_1': 'jane.doe@kernel.org'})
		env.start()
		self.addCleanup(env.stop)

	def stopped_by(self, exc: BaseException) -> None:
		"""The tree step (lab.py tree's build_topic, the others'
		Session.topic) raises exc."""
		for target in (mock.patch.object(kernel_tree, 'build_topic',
						 side_effect=exc),
			       mock.patch.object(cli.Session, 'topic',
						 side_effect=exc)):
			target.start()
			self.addCleanup(target.stop)

	def test_lab_error_ends_with_error_and_verdict(self) -> None:
		self.stopped_by(LabError('base 1 is not installed', 'run make '
					 'setup'))
		for main, argv, tool in ENTRY_POINTS:
			with self.subTest(tool=tool):
				rc, out, err = capture(lambda: main(argv))
				self.assertEqual(rc, 1)
				self.assertEqual(err, ['error: base 1 is not installed: '
						       'run make setup'])
				self.assertEqual(out[-1:], [f'VERDICT {tool}: FAIL '
							    '(see the error above)'])

	def test_ctrl_c_is_one_line_and_130(self) -> None:
		self.stopped_by(KeyboardInterrupt())
		for main, argv, tool in ENTRY_POINTS:
			with self.subTest(tool=tool):
				rc, out, err = capture(lambda: main(argv))
				self.assertEqual(rc, 130)
				self.assertEqual(len(err), 1, err)
				self.assertRegex(err[0], f'^error: {tool} interrupted '
						 r'\(Ctrl-C\); ')
				self.assertFalse([l for l in out if 'VERDICT' in l])

	def test_a_placeholder_sender_is_refused_before_the_tree(self) -> None:
		# make series with the overlay's identity as git's: one error
		# line, exit 1 and the VERDICT line; no lock, no tree step.
		self.stopped_by(AssertionError('must not get this far'))
		with mock.patch.dict(os.environ, {
				'GIT_CONFIG_VALUE_0': 'Hibernate Lab',
				'GIT_CONFIG_VALUE_1': 'hibernate-lab@example.org'}):
			rc, out, err = capture(lambda: series.main([]))
		self.assertEqual((rc, out), (1, ['VERDICT series: FAIL (see the '
						 'error above)']))
		self.assertEqual(err, ["error: sender identity 'Hibernate Lab "
				       "<hibernate-lab@example.org>' is the "
				       'placeholder: set git config --global '
				       'user.name/user.email to yours (make series '
				       'signs off every patch with it)'])
		self.assertFalse((Path(os.environ['HIBLAB_CACHE_DIR']) /
				  'lock').exists())

	def test_bad_usage_is_exit_2_without_a_verdict(self) -> None:
		self.stopped_by(AssertionError('must not get this far'))
		for main, argv, want in (
			(lab.main, ['tree', '--base', 'nosuch'], "unknown base "
			 "'nosuch': choose one of 6.12, 7.3"),
			(lab.main, ['test', '--only', 'nosuch'], 'unknown check\\(s\\) '
			 'nosuch: choose from host-unit-tests, '),
			(lab.main, ['test', '--base', 'nosuch'], 'unknown base'),
			(kunit.main, ['--base', 'nosuch', 'run'], "unknown base "
			 "'nosuch'"),
			(kunit.main, ['--base'], '--base needs a name'),
			(mutants.main, ['--base', 'nosuch'], "unknown base"),
			(mutants.main, ['nosuch'], 'no mutant nosuch for base '
			 '6.12: see .*/mutants/6.12/\\*.patch for the names'),
			(series.main, ['--base', 'nosuch'], 'unknown base'),
			(series.main, ['--mutant', '/nonexistent.patch'],
			 '--mutant /nonexistent.patch: no such file'),
			(qemu_hibernate.main, ['nosuch'], 'unknown scenario'),
			(qemu_hibernate.main, ['--base', 'nosuch'], 'unknown base'),
		):
			with self.subTest(argv=argv):
				rc, out, err = capture(lambda: main(argv))
				self.assertEqual((rc, out, len(err)), (2, [], 1), err)
				self.assertRegex(err[0], '^error: ' + want)


if __name__ == '__main__':
	unittest.main()
