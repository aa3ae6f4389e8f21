#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Verdict lines and files."""

import unittest

from hiblab import verdict


class VerdictTest(unittest.TestCase):
	def test_summary_and_lines(self) -> None:
		vs = [verdict.Verdict('a', 'PASS'),
		      verdict.Verdict('b', 'FAIL', 'broken', 3.2),
		      verdict.Verdict('c', 'SKIP', 'no kvm')]
		self.assertEqual(verdict.summary(vs),
				 '1 passed, 1 failed, 1 skipped')
		self.assertEqual(vs[1].line(), 'FAIL b: broken [3s]')


if __name__ == '__main__':
	unittest.main()
