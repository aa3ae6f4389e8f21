#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every Killed-by:/Stops-at: of a shipped mutant names a real check."""

import unittest

from hiblab import paths
from hiblab.base import pins
from hiblab.gauntlet import checknames, mutants
from hiblab.series.mutants import read_series_mutants

REPO = paths.REPO_ROOT
BASES = list(pins.read_bases(paths.base_pin_file()))


class CheckNamesTest(unittest.TestCase):
	def test_every_mutant_names_checks_that_exist(self) -> None:
		for base in BASES:
			for m in mutants.read_mutants(paths.mutant_dir(REPO,
									     base)):
				with self.subTest(base=base, mutant=m.name):
					self.assertEqual(checknames.unknown(
						list(m.killed_by), REPO, base), [])

	def test_every_series_mutant_stops_at_a_check_that_exists(self) -> None:
		for base in BASES:
			for m in read_series_mutants(REPO, base):
				with self.subTest(base=base, mutant=m.name):
					self.assertEqual(checknames.unknown(
						[m.stops_at], REPO, base), [])

	def test_names_that_no_check_reports_are_refused(self) -> None:
		# A series mutant adds one commit to a series: its patch count
		# + 1 exists, + 2 not (ident-map sends 3 patches).
		last = 'series/ident-map/checkpatch/0004'
		beyond = 'series/ident-map/checkpatch/0005'
		self.assertEqual(checknames.unknown([
			'kunit/x86_ident_map', 'kunit/x86_ident_mapp',
			'kunit-la57/x86_ident_map', 'kunit-la57/x86_ident_mapp',
			'lab/smoke/hlt-parking', 'lab/smoke/hlt_parking',
			'lab/no-such-scenario/pattern',
			'lab/three-cycles/cycle2/pattern', 'lab/smoke/cycle2/pattern',
			'static/restore_image-no-cr3-switch', 'static/nothing',
			last, beyond, 'series/ident-map/build/0002-guest',
			'series/ident-map/build/0002', 'series/build/0002-guest',
			'series/ident-map/build/0002-allyes',
			'series/hibernate-image/kunit-pti/x86_ident_map'],
			REPO, '6.12'), [
			'kunit/x86_ident_mapp', 'kunit-la57/x86_ident_mapp',
			'lab/smoke/hlt_parking',
			'lab/no-such-scenario/pattern', 'lab/smoke/cycle2/pattern',
			'static/nothing', beyond, 'series/build/0002-guest',
			'series/ident-map/build/0002-allyes'])

	def test_scenarios_of_another_base_are_not_checks_here(self) -> None:
		self.assertEqual(checknames.unknown(
			['lab/offline-restore-mainline/hlt-parking'], REPO, '7.3'),
			['lab/offline-restore-mainline/hlt-parking'])
		self.assertEqual(checknames.unknown(
			['lab/offline-restore-mainline/hlt-parking'], REPO, '6.12'),
			[])

	def test_the_gauntlet_refuses_an_unknown_name(self) -> None:
		m = mutants.Mutant('typo', REPO / 'typo.patch', 'a bug',
				       ('kunit/x86_ident_map', 'lab/smoke/paterns'))
		with self.assertRaisesRegex(mutants.LabError,
					    'typo.*lab/smoke/paterns'):
			mutants.check_names([m], REPO, '6.12')


if __name__ == '__main__':
	unittest.main()
