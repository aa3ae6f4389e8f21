#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Scenarios as data."""

import unittest

import lab_scenarios


class ScenarioTest(unittest.TestCase):
	def test_stress_is_seeded_and_never_offlines_cpu0(self) -> None:
		a = lab_scenarios.stress_scenarios(20, 7)
		self.assertEqual(a, lab_scenarios.stress_scenarios(20, 7))
		self.assertNotEqual(a, lab_scenarios.stress_scenarios(20, 8))
		self.assertEqual(len({s.name for s in a}), 20)
		for s in a:
			self.assertTrue(s.churn)
			for cpus in (s.offline_image, s.offline_restore):
				self.assertNotIn('0', cpus.split(','))
			self.assertEqual(s.online_after, s.offline_image)


if __name__ == '__main__':
	unittest.main()
