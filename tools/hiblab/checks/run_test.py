#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The order make test checks the bases in."""

import unittest

from hiblab.checks import run


class CheckedFirstTest(unittest.TestCase):
	def test_the_fully_checked_base_runs_first(self) -> None:
		self.assertEqual(run.checked_first(['6.12', '7.3']),
				 ['7.3', '6.12'])

	def test_bases_without_skips_keep_the_pin_order(self) -> None:
		self.assertEqual(run.checked_first(['b', 'a', '6.12']),
				 ['b', 'a', '6.12'])


if __name__ == '__main__':
	unittest.main()
