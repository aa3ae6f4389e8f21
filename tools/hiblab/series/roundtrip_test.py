#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The git am round trip judged on recorded trees."""

import json
import unittest

from hiblab.errors import LabError
from hiblab.series import roundtrip
from hiblab.series.captures import MADE, printed
from hiblab.verdict import FAIL


class RoundTripTest(unittest.TestCase):
	def record(self, name: str) -> roundtrip.RoundTrip:
		return roundtrip.RoundTrip(**json.loads(
			(MADE / f'{name}.json').read_text()))

	def test_the_mails_give_the_topic_tree(self) -> None:
		v = roundtrip.judge_round_trip(self.record('round-trip-6.12-mails'))
		self.assertEqual(v.line(), printed('series/round-trip')[0])

	def test_mails_of_another_tree_fail(self) -> None:
		# The trailing-whitespace mutant's patches carry a commit the
		# topic does not have.
		v = roundtrip.judge_round_trip(self.record(
			'round-trip-6.12-trailing-whitespace-patches'))
		self.assertEqual(v.status, FAIL)
		self.assertIn('tree b08693e5aa1d != topic tree c44de57706d9',
			      v.detail)

	def test_mails_that_do_not_apply_stop_the_run(self) -> None:
		with self.assertRaisesRegex(LabError, r'^git am of the written '
					    r'mails failed \(git am failed in '):
			roundtrip.judge_round_trip(self.record(
				'round-trip-7.3-mails-onto-6.12'))


if __name__ == '__main__':
	unittest.main()
