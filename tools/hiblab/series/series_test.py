#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What a run of make series leaves out: the series mutants without
per-commit builds, a held series' own stack without held_stacks."""

import unittest
import unittest.mock
from pathlib import Path

from hiblab.series import series
from hiblab.series.mutants import SeriesMutant
from hiblab.series.request import SeriesRequest
from hiblab.verdict import FAIL, Verdict


def request(builds: bool, **kw) -> SeriesRequest:
	return SeriesRequest(unittest.mock.Mock(), 'base', 'topic', Path('/c'),
			     Path('/r'), Path('/results'), 1, base_name='7.3',
			     builds=builds, **kw)


class SeriesMutantsTest(unittest.TestCase):
	MUTANTS = [
		SeriesMutant('commit-does-not-build', Path('a.patch'), 1,
			     'series/ident-map/build/0002', 'ident-map'),
		SeriesMutant('undeclared-prerequisite', Path('b.patch'), 0,
			     'series/hibernate-image/kunit/x86_hibernate_pgtable',
			     'hibernate-image', ()),
	]

	def run_mutants(self, builds: bool) -> list:
		ran = []

		def run_series(req, s, catalog, progress):
			ran.append(req.mutant.name)
			return [Verdict(req.mutant.stops_at[len('series/'):], FAIL,
					'x'),
				Verdict(f'{s.name}', FAIL, 'stopped: x')]

		catalog = [unittest.mock.Mock(), unittest.mock.Mock()]
		catalog[0].name, catalog[1].name = 'ident-map', 'hibernate-image'
		with unittest.mock.patch.object(series, 'run_series', run_series), \
		     unittest.mock.patch.object(series, 'pick',
						lambda c, n: next(s for s in c
								  if s.name == n)):
			got = series.run_series_mutants(request(builds), catalog,
							self.MUTANTS, lambda s: None)
		return ran, got

	def test_every_mutant_runs_with_the_builds(self) -> None:
		ran, got = self.run_mutants(True)
		self.assertEqual(ran, ['commit-does-not-build',
				       'undeclared-prerequisite'])
		self.assertEqual(len(got), 2)

	def test_a_build_stage_mutant_is_left_out_without_them(self) -> None:
		ran, got = self.run_mutants(False)
		self.assertEqual(ran, ['undeclared-prerequisite'])
		self.assertEqual([v.name for v in got],
				 ['series-mutant/undeclared-prerequisite'])


class HeldStacksTest(unittest.TestCase):
	def stacks_run(self, hold: str, held_stacks: bool) -> tuple:
		said = []
		defn = unittest.mock.Mock(hold=hold)
		defn.name = 'header-addresses'
		s = series.Series(request(True, held_stacks=held_stacks,
					  rehearsal=True, series=defn,
					  stack=unittest.mock.Mock()), said.append)
		return s.stacks_run(), said

	def test_a_series_to_send_runs_its_stack(self) -> None:
		self.assertEqual(self.stacks_run('', False), (True, []))
		self.assertEqual(self.stacks_run('', True), (True, []))

	def test_a_held_series_leaves_its_stack_out_only_if_asked(self) -> None:
		self.assertEqual(self.stacks_run('wrong check', True), (True, []))
		ran, said = self.stacks_run('wrong check', False)
		self.assertFalse(ran)
		self.assertEqual(said, ['series: header-addresses: held: its KUnit '
					'suites on its own stack and its '
					'per-commit builds left out (make '
					'test-all runs them)'])


if __name__ == '__main__':
	unittest.main()
