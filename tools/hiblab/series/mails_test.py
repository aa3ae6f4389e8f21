#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The mails b4 wrote, judged against MAINTAINERS-notes and the sender."""

import dataclasses
import json
import tempfile
import unittest
from pathlib import Path
from typing import List

from hiblab import paths
from hiblab.errors import LabError
from hiblab.series import mails
from hiblab.series.captures import (DATA, F666, IDENTITY, KIRILL, MADE, ME, RUN,
				    SENDER, lines, printed)
from hiblab.verdict import FAIL, PASS, Verdict


class MailTest(unittest.TestCase):
	def want(self, base: str) -> set:
		return mails.parse_recipients(
			(DATA / 'MAINTAINERS-notes').read_text(), base)

	def test_the_mails_go_to_the_notes_recipients(self) -> None:
		eml_files = sorted((RUN / 'mails').glob('*.eml'))
		got = [mails.judge_mail(mails.read_mail(m),
					     self.want('6.12'), ME) for m in eml_files]
		self.assertEqual(lines(got), printed('series/mail/')[:len(eml_files)])

	def test_recipients_of_another_tree_fail(self) -> None:
		# 7.3's MAINTAINERS names Thomas Gleixner and Pavel Machek at
		# kernel.org: a 7.3 mail is wrong for the 6.12 series.
		m = mails.read_mail(next((DATA / '7.3' / 'mails').glob('*.eml')))
		self.assertEqual(mails.judge_mail(m, self.want('7.3'),
						       ME).status, PASS)
		v = mails.judge_mail(m, self.want('6.12'), ME)
		self.assertEqual(v.line(), 'FAIL series/mail/0001: recipients '
				 'differ from MAINTAINERS-notes: missing '
				 'pavel@ucw.cz, tglx@linutronix.de, extra '
				 'pavel@kernel.org, tglx@kernel.org')

	def test_a_mail_without_to_fails(self) -> None:
		# git format-patch of the series' first commit: no recipients.
		m = mails.read_mail(MADE / '0001-format-patch-no-to.eml')
		self.assertEqual(mails.judge_mail(m, self.want('6.12'),
						       ME).line(),
				 'FAIL series/mail/0001: no To: (b4 send refuses '
				 'a series without recipients)')

	def test_mail_recipients(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			m = Path(tmp) / '0001.eml'
			m.write_text('From: A <a@x>\nTo: B <b@x>,\n "C, D" <c@x>\n'
				     'Cc: l@x\nSubject: s\n\nbody\n')
			self.assertEqual(mails.mail_recipients(m),
					 (['b@x', 'c@x'], ['l@x']))


class NotesTest(unittest.TestCase):
	def test_expected_recipients_from_maintainers_notes(self) -> None:
		image = mails.expected_recipients(paths.REPO_ROOT, '6.12',
						  'hibernate-image')
		self.assertIn('x86@kernel.org', image)
		self.assertIn('rafael@kernel.org', image)
		self.assertIn('linux-pm@vger.kernel.org', image)
		ident = mails.expected_recipients(paths.REPO_ROOT, '7.3',
						  'ident-map')
		self.assertIn('luto@kernel.org', ident)
		self.assertNotIn('linux-pm@vger.kernel.org', ident)
		with self.assertRaisesRegex(LabError, 'no recipients block for '
					    'the 7.3 nothing series'):
			mails.expected_recipients(paths.REPO_ROOT, '7.3', 'nothing')


class IdentityMailTest(unittest.TestCase):
	"""series/mail/NNNN on the mails of a real make series run with a
	sender (test_data/identity/, see its README)."""

	def captured_mails(self) -> List[mails.Mail]:
		return [mails.read_mail(m) for m in
			sorted((IDENTITY / 'mails').glob('*.eml'))]

	def want(self) -> set:
		return mails.parse_recipients(
			(IDENTITY / 'MAINTAINERS-notes').read_text(), '6.12')

	def judge(self, mail: mails.Mail) -> Verdict:
		return mails.judge_mail(mail, self.want(), SENDER[1])

	def test_the_mails_are_the_senders_as_the_run_printed(self) -> None:
		got_mails = self.captured_mails()
		checks = json.loads((IDENTITY / 'verdicts.json').read_text())
		printed_ = [Verdict(c['name'], c['status'], c['detail']).line()
			    for c in checks['checks']
			    if c['name'].startswith('series/mail/')]
		self.assertEqual(lines(mails.judge_mails(
			got_mails, self.want(), SENDER[1])),
			printed_[:len(got_mails)])
		cover, backport, ours = got_mails
		self.assertEqual((backport.sender, backport.author,
				  backport.upstream, backport.signoffs),
				 (SENDER[1], KIRILL[1], F666,
				  (KIRILL[1], 'mingo@kernel.org', SENDER[1])))
		self.assertEqual((ours.sender, ours.author, ours.upstream,
				  ours.signoffs), (SENDER[1], SENDER[1], '',
						   (SENDER[1],)))
		# b4 copies the backport to the people its trailers name (and
		# the cover letter to all of them): not MAINTAINERS-notes'.
		self.assertIn('kai.huang@intel.com', backport.cc)
		self.assertIn('kai.huang@intel.com', cover.cc)
		self.assertNotIn('kai.huang@intel.com', ours.cc)
		self.assertEqual(self.judge(cover).status, FAIL)

	def damaged(self, n: int, old: str, new: str) -> mails.Mail:
		path = next((IDENTITY / 'mails').glob(f'{n:04d}-*.eml'))
		data = path.read_bytes()
		self.assertIn(old.encode(), data)
		return mails.parse_mail(path.name, data.replace(
			old.encode(), new.encode(), 1))

	def test_a_commented_trailer_is_the_patchs_own(self) -> None:
		# b4 Cc:s the address of "Cc: <stable+noautosel@...> # why",
		# as it did on the 7.3 hibernate-image mails of stop 39's CI.
		sob = 'Signed-off-by: Jane Doe <jane.doe@kernel.org>\n'
		stable = 'stable+noautosel@kernel.org'
		m = self.damaged(2, sob, f'Cc: <{stable}> # no report\n{sob}')
		m = dataclasses.replace(m, cc=m.cc + (stable,))
		self.assertEqual(m.trailers[0], stable)
		self.assertEqual(self.judge(m).status, PASS)

	def test_a_backport_under_the_senders_name_fails(self) -> None:
		m = self.damaged(1, 'From: "Kirill A. Shutemov" <kirill.shutemov@'
				 'linux.intel.com>\n\n', '')
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0001: a '
				 'backport of f666c92090a4 by jane.doe@kernel.org, '
				 'not its original author kirill.shutemov@linux.'
				 'intel.com (the first Signed-off-by)')

	def test_a_second_or_missing_signoff_fails(self) -> None:
		sob = 'Signed-off-by: Jane Doe <jane.doe@kernel.org>\n'
		self.assertEqual(self.judge(self.damaged(2, sob, sob * 2)).line(),
				 "FAIL series/mail/0002: the sender's Signed-off-"
				 'by (jane.doe@kernel.org) is there 2 times, not '
				 'last')
		self.assertIn('is there 0 times',
			      self.judge(self.damaged(2, sob, '')).detail)

	def test_our_patch_under_another_author_fails(self) -> None:
		mailer = 'X-Mailer: b4 0.12.0\n\n'
		m = self.damaged(2, mailer, f'{mailer}From: Hibernate Lab <{ME}>'
				 '\n\n')
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0002: '
				 f'author {ME}, not the sender jane.doe@kernel.org '
				 '(only a backport keeps its author)')

	def test_the_old_placeholder_mails_are_not_the_senders(self) -> None:
		# The CI run's mails (test_data/6.12/), from before the
		# sender: the placeholder's.
		m = mails.read_mail(next((RUN / 'mails').glob('0001-*.eml')))
		self.assertEqual(self.judge(m).line(), 'FAIL series/mail/0001: '
				 f'From: {ME}, not the sender jane.doe@kernel.org')


if __name__ == '__main__':
	unittest.main()
