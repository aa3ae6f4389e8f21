#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""b4's runs judged on captured logs; the cover letter it is given."""

import unittest
from pathlib import Path

from hiblab import paths
from hiblab.base import overlay
from hiblab.base.pins import BasePin
from hiblab.errors import LabError
from hiblab.series import b4, catalog
from hiblab.series.captures import MADE, RUN, logged_runs


class B4Test(unittest.TestCase):
	def test_the_series_enrolls_and_sends(self) -> None:
		b4_runs = logged_runs(RUN / 'b4.log')
		self.assertEqual([' '.join(r.argv[1:3]) for r in b4_runs],
				 ['prep -e', 'prep --edit-cover', 'prep --auto-to-cc',
				  'prep -p', 'send -o'])
		for r in b4_runs:
			self.assertEqual(b4.judge_b4(r, 'x'), r.output)
		b4.judge_auto_to_cc(b4_runs[2].output)

	def test_auto_to_cc_without_get_maintainer(self) -> None:
		# A toy repository without scripts/get_maintainer.pl: b4
		# exits 0 and adds nobody.
		auto = logged_runs(MADE / 'b4-editme.log', {2: 1})[1]
		self.assertEqual(auto.argv, ('b4', 'prep', '--auto-to-cc'))
		with self.assertRaisesRegex(LabError, 'did not run scripts/'
					    'get_maintainer.pl.*chmod \\+x'):
			b4.judge_auto_to_cc(
				b4.judge_b4(auto, 'prep --auto-to-cc'))

	def test_a_failing_b4_is_its_critical_line(self) -> None:
		send = logged_runs(MADE / 'b4-editme.log', {2: 1})[2]
		with self.assertRaises(LabError) as e:
			b4.judge_b4(send, 'send -o')
		self.assertEqual(str(e.exception), 'b4 send -o failed: CRITICAL: '
				 'Looks like the cover letter needs to be edited '
				 f'first.: see {MADE / "b4-editme.log"}')


class CoverTest(unittest.TestCase):
	def test_cover_letter_with_editme_is_refused(self) -> None:
		with self.assertRaisesRegex(LabError, 'x.series still says EDITME'):
			b4.check_cover('EDITME: title\n', Path('x.series'))
		for base in ('6.12', '7.3'):
			steps = len(overlay.read_steps(paths.overlay_dir(
				paths.REPO_ROOT, base)))
			for s in catalog.read_catalog(paths.REPO_ROOT, base, steps):
				with self.subTest(base=base, series=s.name):
					b4.check_cover(s.cover, s.path)

	def test_the_tail_names_the_base_and_the_prerequisites(self) -> None:
		tail = b4.cover_template('b' * 40, ('1' * 40, '2' * 40),
					 'Based on 7.3.')
		self.assertIn('Based on 7.3.\nbase-commit: ' + 'b' * 40 +
			      '\nprerequisite-patch-id: ' + '1' * 40 +
			      '\nprerequisite-patch-id: ' + '2' * 40 +
			      '\nchange-id: ${change_id}\n', tail)
		self.assertTrue(tail.startswith('${cover}\n'))


class BasedOnTest(unittest.TestCase):
	def test_the_base_is_named_upstream_and_by_package(self) -> None:
		pin = BasePin('7.3', 'linux-source-7.3', '7.3.4-1~bpo13+1',
			      Path('/t.tar.xz'), 'ab', '7.3.4')
		self.assertEqual(b4.based_on(pin, []),
				 "Based on v7.3.4 as Debian's linux-source-7.3 "
				 '7.3.4-1~bpo13+1 ships it (base-commit: is that '
				 'source imported as one commit, not an upstream '
				 'id).')
		self.assertTrue(b4.based_on(pin, ['ident-map']).endswith(
			'; first the prerequisite patches of the series named '
			'above (prerequisite-patch-id:).'))
		self.assertNotIn('ident-map', b4.based_on(pin, ['ident-map']))


if __name__ == '__main__':
	unittest.main()
