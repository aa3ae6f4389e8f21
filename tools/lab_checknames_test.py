#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every Killed-by:/Stops-at: of a shipped mutant names a real check."""

import unittest

import lab_base
import lab_checknames
import lab_mutants
import lab_paths
import lab_series

REPO = lab_paths.REPO_ROOT
BASES = list(lab_base.read_bases(lab_paths.base_pin_file()))


class CheckNamesTest(unittest.TestCase):
	def test_every_mutant_names_checks_that_exist(self) -> None:
		for base in BASES:
			for m in lab_mutants.read_mutants(lab_paths.mutant_dir(REPO,
									     base)):
				with self.subTest(base=base, mutant=m.name):
					self.assertEqual(lab_checknames.unknown(
						list(m.killed_by), REPO, base), [])

	def test_every_series_mutant_stops_at_a_check_that_exists(self) -> None:
		for base in BASES:
			for m in lab_series.read_series_mutants(REPO, base):
				with self.subTest(base=base, mutant=m.name):
					self.assertEqual(lab_checknames.unknown(
						[m.stops_at], REPO, base), [])

	def test_names_that_no_check_reports_are_refused(self) -> None:
		# A series mutant adds one commit: step count + 1 exists, + 2 not.
		steps = lab_checknames.series_length(REPO, '6.12')
		last = f'series/checkpatch/{steps + 1:04d}'
		beyond = f'series/checkpatch/{steps + 2:04d}'
		self.assertEqual(lab_checknames.unknown([
			'kunit/x86_ident_map', 'kunit/x86_ident_mapp',
			'kunit-la57/x86_ident_map', 'kunit-la57/x86_ident_mapp',
			'lab/smoke/hlt-parking', 'lab/smoke/hlt_parking',
			'lab/no-such-scenario/pattern',
			'lab/three-cycles/cycle2/pattern', 'lab/smoke/cycle2/pattern',
			'static/restore_image-no-cr3-switch', 'static/nothing',
			last, beyond, 'series/build/0002-guest', 'series/build/0002-allyes'],
			REPO, '6.12'), [
			'kunit/x86_ident_mapp', 'kunit-la57/x86_ident_mapp',
			'lab/smoke/hlt_parking',
			'lab/no-such-scenario/pattern', 'lab/smoke/cycle2/pattern',
			'static/nothing', beyond,
			'series/build/0002-allyes'])

	def test_scenarios_of_another_base_are_not_checks_here(self) -> None:
		self.assertEqual(lab_checknames.unknown(
			['lab/offline-restore-mainline/hlt-parking'], REPO, '7.3'),
			['lab/offline-restore-mainline/hlt-parking'])
		self.assertEqual(lab_checknames.unknown(
			['lab/offline-restore-mainline/hlt-parking'], REPO, '6.12'),
			[])

	def test_the_gauntlet_refuses_an_unknown_name(self) -> None:
		m = lab_mutants.Mutant('typo', REPO / 'typo.patch', 'a bug',
				       ('kunit/x86_ident_map', 'lab/smoke/paterns'))
		with self.assertRaisesRegex(lab_mutants.LabError,
					    'typo.*lab/smoke/paterns'):
			lab_mutants.check_names([m], REPO, '6.12')


if __name__ == '__main__':
	unittest.main()
