#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A series' KUnit suites: found in its files, judged in every boot."""

import unittest

from hiblab.kernel import kunit
from hiblab.series import suites
from hiblab.verdict import FAIL, PASS, Verdict

SOURCE = '''
static struct kunit_case cases[] = { KUNIT_CASE(a), {} };

static struct kunit_suite hibernate_pgtable_test_suite = {
	.name = "x86_hibernate_pgtable",
	.test_cases = cases,
};
kunit_test_suite(hibernate_pgtable_test_suite);
'''


class SuitesTest(unittest.TestCase):
	def test_suite_names(self) -> None:
		self.assertEqual(suites.suite_names(SOURCE),
				 ['x86_hibernate_pgtable'])
		self.assertEqual(suites.suite_names('int x;'), [])

	def test_only_the_wanted_suites_and_a_missing_one_fails(self) -> None:
		got = [Verdict('kunit/x86_ident_map', PASS, '44 passed'),
		       Verdict('kunit/x86_hibernate_pgtable', FAIL, '1 failed'),
		       Verdict('kunit-la57/x86_hibernate_pgtable', PASS, 'ok'),
		       Verdict('kunit-pti', FAIL, 'no suite ran')]
		out = suites.judge_suites(['x86_hibernate_pgtable'], got,
					  kunit.BOOTS, 'series')
		self.assertEqual([v.line() for v in out], [
			'FAIL series/kunit/x86_hibernate_pgtable: 1 failed',
			'PASS series/kunit-la57/x86_hibernate_pgtable: ok',
			'FAIL series/kunit-pti/x86_hibernate_pgtable: did not run: '
			'no suite ran'])


if __name__ == '__main__':
	unittest.main()
