#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Scenarios as data."""

import types
import unittest

from hiblab.checks import kernels
from hiblab.lab import scenarios


class ScenarioTest(unittest.TestCase):
	def test_stress_is_seeded_and_never_offlines_cpu0(self) -> None:
		a = scenarios.stress_scenarios(20, 7)
		self.assertEqual(a, scenarios.stress_scenarios(20, 7))
		self.assertNotEqual(a, scenarios.stress_scenarios(20, 8))
		self.assertEqual(len({s.name for s in a}), 20)
		for s in a:
			self.assertTrue(s.churn)
			for cpus in (s.offline_image, s.offline_restore):
				self.assertNotIn('0', cpus.split(','))
			self.assertEqual(s.online_after, s.offline_image)

	def test_a_variant_a_base_does_not_need_is_its_plain_build(self) -> None:
		mainline = scenarios.SCENARIOS['offline-restore-mainline'].build
		self.assertEqual(mainline.on('6.12'), mainline)
		self.assertEqual(mainline.on('7.3'), scenarios.PLAIN)
		lockdep = scenarios.SCENARIOS['lockdep-trace'].build
		self.assertEqual(lockdep.on('7.3'), lockdep)
		self.assertEqual(lockdep.on('6.12'), lockdep)

	def test_the_header_change_is_crossed_both_ways(self) -> None:
		old = scenarios.SCENARIOS['old-header-image']
		new = scenarios.SCENARIOS['old-header-restore']
		self.assertEqual((old.build, old.restore),
				 (scenarios.HEADER_BEFORE_LEVELS, scenarios.PLAIN))
		self.assertEqual((new.build, new.restore),
				 (scenarios.PLAIN, scenarios.HEADER_BEFORE_LEVELS))
		for s in (old, new):	# restored, proven: not a refusal
			self.assertFalse(s.refusal, s.name)
			self.assertTrue(s.hlt_proof, s.name)

	def test_across_bases_both_kernels_ours(self) -> None:
		up = scenarios.SCENARIOS['topic-6.12-to-topic']
		down = scenarios.SCENARIOS['topic-to-topic-6.12']
		self.assertEqual((up.build, up.restore),
				 (scenarios.SERIES_6_12, scenarios.PLAIN))
		self.assertEqual((down.build, down.restore),
				 (scenarios.PLAIN, scenarios.SERIES_6_12))
		self.assertEqual(scenarios.SERIES_6_12.name, 'series-6.12')
		for s in (up, down):	# restored, proven, on 7.3 only
			self.assertFalse(s.refusal or s.resets, s.name)
			self.assertTrue(s.hlt_proof, s.name)
			self.assertEqual(s.bases, ('7.3',), s.name)
		# 'variants' builds neither 6.12's kernel nor Debian's.
		builds = kernels._variant_builds(types.SimpleNamespace(base='7.3'))
		self.assertTrue(builds)
		self.assertFalse([b for b in builds if b.series_of or b.shipped])

	def test_a_known_reset_says_why_and_is_nothing_else(self) -> None:
		resets = [s for s in scenarios.SCENARIOS.values() if s.resets]
		self.assertEqual(len(resets), 4)
		for s in resets:
			self.assertFalse(s.refusal or s.save_fails or s.cycles > 1,
					 s.name)
			# Only across a paging-level change, with Debian's kernel on
			# the side that lacks the fix.
			self.assertNotEqual(s.paging, s.paging_restore, s.name)
			self.assertIn(scenarios.DEBIAN, (s.build, s.restore), s.name)

	def test_paging_claims(self) -> None:
		for s in scenarios.SCENARIOS.values():
			self.assertIn(s.paging, scenarios.PAGING_LEVELS, s.name)
			self.assertIn(s.paging_restore, scenarios.PAGING_LEVELS,
				      s.name)
			if s.paging and not s.refusal and not s.resets:
				# The level is proven from CR4 at the breakpoint (a
				# restore that does not finish proves it from
				# page_offset_base's range).
				self.assertTrue(s.hlt_proof, s.name)
			if s.paging_restore:
				self.assertTrue(s.paging, s.name)
		# A level change between the boots is refused (pristine
		# kernels reset the guest instead: 65c0554b73c9's header has
		# no level); the image's level comes from the image kernel's
		# own build or command line, never the restore kernel's.
		for name, image, restore in (('paging-5-to-4', 5, 4),
					     ('paging-4-to-5', 4, 5)):
			s = scenarios.SCENARIOS[name]
			self.assertEqual((s.paging, s.paging_restore), (image, restore))
			self.assertIn(f'uses {image}-level paging', s.refusal)
		self.assertEqual(scenarios.SCENARIOS['la57'].paging, 5)
		no5lvl = scenarios.SCENARIOS['no5lvl']
		self.assertEqual((no5lvl.paging, no5lvl.cmdline), (4, 'no5lvl'))


if __name__ == '__main__':
	unittest.main()
