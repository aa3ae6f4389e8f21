#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""checkpatch.pl's output judged: the captured 6.12 run, damaged patches,
and small written summaries."""

import unittest
from typing import Dict

from hiblab.series import checkpatch, mutants, runs
from hiblab.series.captures import (MADE, RUN, checkpatch_runs, lines,
				    logged_runs, mutant, printed)
from hiblab.verdict import FAIL, PASS


class CheckpatchTest(unittest.TestCase):
	def justified(self) -> Dict[int, set]:
		return checkpatch.justified_findings(
			(RUN / 'cover-letter.txt').read_text())

	def test_the_series_passes_as_the_run_printed(self) -> None:
		got = checkpatch.judge_checkpatch(
			checkpatch_runs(RUN / 'checkpatch.log'), self.justified())
		self.assertEqual(lines(got), printed('series/checkpatch/'))
		self.assertTrue(runs.passed(got))

	def test_trailing_whitespace_stops_the_run(self) -> None:
		m = mutant('trailing-whitespace')
		got = checkpatch.judge_checkpatch(checkpatch_runs(
			RUN / 'mutant-trailing-whitespace' / 'checkpatch.log'),
			self.justified(), m)
		failed = [v for v in got if v.status == FAIL]
		self.assertEqual([v.name for v in failed],
				 ['series/checkpatch/0008', 'series'])
		self.assertIn('first: ERROR:TRAILING_WHITESPACE', failed[0].detail)
		self.assertIn('stopped: a patch has checkpatch findings',
			      failed[1].detail)
		self.assertEqual(mutants.judge_mutant(m, got).line(),
				 printed('series-mutant/trailing-whitespace')[0])

	def test_justifications_follow_the_patches_past_a_mutant(self) -> None:
		# The mutant commit after 0001 moves every later patch up one:
		# the cover letter's "in 4" must still mean the real patch 4.
		cp = checkpatch_runs(RUN / 'mutant-commit-does-not-build' /
				     'checkpatch.log')
		got = checkpatch.judge_checkpatch(cp, self.justified(),
						  mutant('commit-does-not-build'))
		self.assertTrue(runs.passed(got), lines(got))
		unnumbered = checkpatch.judge_checkpatch(cp, self.justified())
		self.assertEqual([v.name for v in unnumbered if v.status == FAIL],
				 ['series/checkpatch/0005', 'series/checkpatch/0007',
				  'series'])
		self.assertIn('first: WARNING:UNKNOWN_COMMIT_ID',
			      unnumbered[4].detail)

	def test_an_unjustified_warning_fails(self) -> None:
		# Patch 5 with a comment past 100 columns (produced/, README).
		run = logged_runs(MADE / 'checkpatch-long-comment.log', {0: 1})[0]
		v = checkpatch.checkpatch_verdict('series/checkpatch/0005',
						  run.output,
						  self.justified().get(5, set()))
		self.assertEqual(v.line(), 'FAIL series/checkpatch/0005: 0 errors, '
				 '1 warnings, 0 checks, 19 lines; first: WARNING:'
				 'LONG_LINE_COMMENT: line length of 103 exceeds '
				 '100 columns')
		self.assertEqual(checkpatch.checkpatch_verdict(
			'c', run.output, {'LONG_LINE_COMMENT'}).status, PASS)

	def test_no_summary_is_a_failure(self) -> None:
		run = logged_runs(MADE / 'checkpatch-missing-patch.log', {0: 2})[0]
		v = checkpatch.checkpatch_verdict('c', run.output)
		self.assertEqual(v.status, FAIL)
		self.assertIn('printed no summary: ', v.detail)
		self.assertIn('open failed - No such file or directory', v.detail)

	def test_cover_numbers(self) -> None:
		m = mutant('commit-does-not-build')
		self.assertEqual([checkpatch.cover_number(n, m) for n in (1, 2, 3, 8)],
				 [1, 0, 2, 7])
		self.assertEqual(checkpatch.cover_number(3, None), 3)


class SummaryTest(unittest.TestCase):
	"""checkpatch's summary line and the cover letter's justifications."""

	def test_checkpatch_summary(self) -> None:
		clean = 'total: 0 errors, 0 warnings, 0 checks, 52 lines checked\n'
		v = checkpatch.checkpatch_verdict('series/checkpatch/0001', clean)
		self.assertEqual(v.status, 'PASS')
		dirty = ('ERROR:TRAILING_WHITESPACE: trailing whitespace\n'
			 '#12: FILE: a.c:3:\n'
			 'total: 1 errors, 0 warnings, 0 checks, 9 lines checked\n')
		v = checkpatch.checkpatch_verdict('c', dirty)
		self.assertEqual(v.status, 'FAIL')
		self.assertIn('first: ERROR:TRAILING_WHITESPACE', v.detail)
		self.assertEqual(checkpatch.checkpatch_verdict('c', '').status,
				 'FAIL')
		warned = ('WARNING:UNKNOWN_COMMIT_ID: Unknown commit id\n'
			  'total: 0 errors, 1 warnings, 0 checks, 9 lines checked\n')
		self.assertEqual(checkpatch.checkpatch_verdict('c', warned).status,
				 'FAIL')
		v = checkpatch.checkpatch_verdict('c', warned,
						  {'UNKNOWN_COMMIT_ID'})
		self.assertEqual(v.status, 'PASS')
		self.assertIn('justified', v.detail)
		self.assertEqual(checkpatch.checkpatch_verdict(
			'c', dirty, {'TRAILING_WHITESPACE'}).status, 'FAIL')
		self.assertEqual(checkpatch.justified_findings(
			'Notes:\n   UNKNOWN_COMMIT_ID in 3, 4: ids are upstream\n'
			'   EXPORT_SYMBOL in 4: why\n'),
			{3: {'UNKNOWN_COMMIT_ID'}, 4: {'UNKNOWN_COMMIT_ID',
						      'EXPORT_SYMBOL'}})


if __name__ == '__main__':
	unittest.main()
