#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The order make test checks the bases in, and bases side by side."""

import io
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

from hiblab.checks import run
from hiblab.checks.context import BESIDE_NICE, Context, TestRequest
from hiblab.verdict import FAIL, PASS, Verdict


class CheckedFirstTest(unittest.TestCase):
	def test_the_fully_checked_base_runs_first(self) -> None:
		self.assertEqual(run.checked_first(['6.12', '7.3']),
				 ['7.3', '6.12'])

	def test_bases_without_skips_keep_the_pin_order(self) -> None:
		self.assertEqual(run.checked_first(['b', 'a', '6.12']),
				 ['b', 'a', '6.12'])


class SideBySideTest(unittest.TestCase):
	def test_threads_write_whole_lines(self) -> None:
		out = io.StringIO()
		lines = run.Lines(out)

		def say(who: str) -> None:
			for i in range(200):
				lines.write(f'{who} ')
				lines.write(f'{i}\n')
		threads = [threading.Thread(target=say, args=(w,))
			   for w in ('a', 'b')]
		for t in threads:
			t.start()
		for t in threads:
			t.join()
		got = out.getvalue().splitlines()
		self.assertEqual(len(got), 400)
		self.assertEqual(sorted(got), sorted(f'{w} {i}' for w in 'ab'
						     for i in range(200)))

	def run_bases(self, side_by_side: bool):
		"""run_bases on bases a (first), b, c with one check that
		records each base's nice level and which bases ran at the same
		time as base a's check."""
		seen = {}
		a_running = threading.Event()
		a_may_end = threading.Event()

		def check(ctx: Context) -> Verdict:
			seen[ctx.base] = (ctx.nice, a_running.is_set())
			if ctx.base == 'a':
				a_running.set()
				# Side by side, c ends a's wait; in turn it
				# cannot have run yet.
				seen['c ran during a'] = a_may_end.wait(
					timeout=5 if side_by_side else 0)
			elif ctx.base == 'c':
				a_may_end.set()
				raise RuntimeError('a bug in a check')
			return Verdict('fake', PASS, ctx.base)
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.dict(run.BASE_CHECKS, {'tree': check},
				     clear=True):
			req = TestRequest(Path(d), Path(d), [], 2,
					  side_by_side=side_by_side)
			out = io.StringIO()
			got = run.run_bases(req, Path(d), ['a', 'b', 'c'], out)
		return seen, got, out.getvalue()

	def test_the_first_base_runs_beside_the_others(self) -> None:
		seen, got, text = self.run_bases(True)
		self.assertEqual(seen['a'], (0, False))
		self.assertTrue(seen['c ran during a'])
		self.assertEqual(seen['b'][0], BESIDE_NICE)
		self.assertEqual(seen['c'][0], BESIDE_NICE)
		# The verdicts in the order of the bases, whenever they ended;
		# a check's exception is its base's FAIL, not a lost thread.
		self.assertEqual([(v.name, v.status) for v in got],
				 [('a/fake', PASS), ('b/fake', PASS),
				  ('c/checks', FAIL)])
		self.assertIn("FAIL c/checks: stopped: RuntimeError('a bug in "
			      "a check')", text)

	def test_in_turn_without_side_by_side(self) -> None:
		seen, got, _ = self.run_bases(False)
		self.assertEqual(seen, {'a': (0, False), 'c ran during a': False,
					'b': (0, True), 'c': (0, True)})
		self.assertEqual([v.name for v in got],
				 ['a/fake', 'b/fake', 'c/checks'])


if __name__ == '__main__':
	unittest.main()
