#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Whose the mails are: the identity rules, and the b4 branch rewritten for
the sender."""

import email.utils
import os
import unittest
from pathlib import Path
from unittest import mock

from hiblab import paths, testing
from hiblab.base import overlay
from hiblab.errors import LabError
from hiblab.series import catalog, identity, request, series, stack
from hiblab.series.captures import BACKPORT, F666, KIRILL, ME, SENDER


class IdentityTest(unittest.TestCase):
	"""Whose the mails are: the sender's identity, never a placeholder;
	the sender's Signed-off-by once; a backport keeps its author."""

	def refusal(self, who: identity.Identity) -> str:
		with self.assertRaises(LabError) as e:
			identity.judge_sender(who)
		self.assertEqual(str(e.exception).count('\n'), 0)
		return str(e.exception)

	def test_a_placeholder_identity_is_refused_in_one_line(self) -> None:
		self.assertEqual(self.refusal(('Hibernate Lab', ME)),
				 "sender identity 'Hibernate Lab <hibernate-lab@"
				 "example.org>' is the placeholder: set git config "
				 '--global user.name/user.email to yours (make '
				 'series signs off every patch with it)')
		self.assertIn("'' is not set: set git config",
			      self.refusal(('', '')))
		self.assertIn('has an empty email', self.refusal(('Jane', '')))
		self.assertIn('has an empty name',
			      self.refusal(('', 'jane@kernel.org')))
		for addr in ('jane', 'root@localhost'):
			self.assertIn('has no real email address',
				      self.refusal(('Jane', addr)))
		for addr in ('jane@example.com', 'jane@mail.example.net',
			     'dev@a-seed.example', 'dev@host.localdomain',
			     'jane@kernel.test', 'base-import@hibernate-lab.invalid'):
			self.assertIn('a domain reserved for examples',
				      self.refusal(('Jane Doe', addr)), addr)
		self.assertIn('is the placeholder', self.refusal(
			('Hibernate Lab', 'someone@kernel.org')))
		self.assertIn('is the placeholder', self.refusal(
			identity.IMPORT_IDENTITY))
		# make test's rehearsal identity cannot prepare real mails.
		self.assertIn('hibernate-lab.invalid', self.refusal(
			identity.REHEARSAL_SENDER))

	def test_a_person_is_accepted(self) -> None:
		for who in (SENDER, KIRILL, ('Åsa Öberg', 'asa@oberg.se')):
			self.assertEqual(identity.judge_sender(who), who)

	def test_a_backport_keeps_its_author(self) -> None:
		author, _, message = overlay.parse_commit_txt(BACKPORT)
		self.assertEqual(identity.upstream_commit(message), F666)
		self.assertEqual(identity.mail_author(
			email.utils.parseaddr(author), message, SENDER), KIRILL)
		# Our own patches, on both bases, are the sender's.
		for base in ('6.12', '7.3'):
			steps = overlay.read_steps(paths.overlay_dir(
				paths.REPO_ROOT, base))
			self.assertEqual([identity.upstream_commit(s.message)
					  for s in steps], [''] * len(steps), base)
			self.assertEqual([identity.mail_author(
				email.utils.parseaddr(s.author), s.message, SENDER)
				for s in steps], [SENDER] * len(steps), base)
		self.assertEqual(identity.upstream_commit(
			f's\n\n[ Upstream commit {F666} ]\n\nbody\n'), F666)
		# Naming the commit later in the message is not a backport.
		self.assertEqual(identity.upstream_commit(
			f's\n\nbody\n\ncommit {F666} upstream.\n'), '')

	def test_the_senders_signoff_is_added_once(self) -> None:
		steps = overlay.read_steps(paths.overlay_dir(
			paths.REPO_ROOT, '6.12'))
		sob = 'Signed-off-by: Jane Doe <jane.doe@kernel.org>'
		for s in steps:
			once = identity.sign_off(s.message, SENDER)
			self.assertEqual(identity.sign_off(once, SENDER), once)
			self.assertEqual(once.count(sob), 1, s.name)
			self.assertTrue(once.endswith(f'\n{sob}\n'), s.name)
			# The overlay's placeholder sign-off is no one's.
			self.assertNotIn(ME, once)
		# The backport: after its trailers and backporter's note, in
		# the same block; its own sign-offs stay, in order.
		backport = identity.sign_off(
			overlay.parse_commit_txt(BACKPORT)[2], SENDER)
		self.assertRegex(backport, r'\nSigned-off-by: Kirill A. Shutemov '
				 r'<kirill.shutemov@linux.intel.com>\n'
				 r'Signed-off-by: Ingo Molnar <mingo@kernel.org>\n'
				 r'(.+\n)+  blank lines .* are kept. \]\n' + sob + '\n$')
		# A message the sender signed already (any case) keeps its one.
		signed = 's\n\nbody\n\nSigned-off-by: Jane Doe <Jane.Doe@Kernel.org>\n'
		self.assertEqual(identity.sign_off(signed, SENDER), signed)
		# Prose last: the sign-off starts the trailer block.
		self.assertEqual(identity.sign_off('s\n\nbody\n\n\n', SENDER),
				 f's\n\nbody\n\n{sob}\n')
		self.assertEqual(identity.sign_off(
			's\n\nbody\n\nFixes: 0123456789ab ("x")\nSigned-off-by: '
			f'Hibernate Lab <{ME}>\n', SENDER),
			f's\n\nbody\n\nFixes: 0123456789ab ("x")\n{sob}\n')


class SignTest(testing.LabTestCase):
	"""Series._sign on a tree: the b4 branch is the sender's, the
	topic and its trees are left as they were."""

	def commit(self, git, author: str, message: str) -> str:
		path = git.worktree / 'arch/x86/mm/ident_map.c'
		path.write_text(path.read_text() + 'int more;\n')
		env = overlay.identity_env(author, '2024-10-16T14:14:55+03:00')
		git.run(['commit', '-q', '-a', '-F', '-'], stdin=message.encode(),
			env=env)
		return git.text(['rev-parse', 'HEAD'])

	def test_the_b4_branch_is_the_senders(self) -> None:
		tree = self.fake.build()
		git = tree.git
		git.run(['checkout', '-q', overlay.TOPIC])
		self.commit(git, 'Kirill A. Shutemov <kirill.shutemov@linux.'
			    'intel.com>', f'x86/mm: Backport\n\ncommit {F666} '
			    'upstream.\n\nWhy.\n\nSigned-off-by: Kirill A. '
			    'Shutemov <kirill.shutemov@linux.intel.com>\n')
		topic = self.commit(git, f'Hibernate Lab <{ME}>', 'x86/mm: Ours'
				    f'\n\nWhy.\n\nSigned-off-by: Hibernate Lab '
				    f'<{ME}>\n')
		run = series.Series(request.SeriesRequest(
			git, tree.base, topic, self.fake.cache, self.fake.repo,
			self.root / 'results', 1, base_name='fake', sender=SENDER,
			series=catalog.SeriesDef('both', Path('both.series'),
						 'PATCH', 1, 'x86/mm', (1, 2)),
			stack=stack.Stack(tree.base, tree.base, topic)),
			testing.quiet)
		wt = run._branch()
		log = wt.text(['log', '--format=%an <%ae>|%cn <%ce>|%ad|%B%x00',
			       '--date=iso-strict', f'{tree.base}..HEAD'])
		ours, backport = [c.strip() for c in log.split('\0')[:2]]
		self.assertEqual(ours, 'Jane Doe <jane.doe@kernel.org>|Jane Doe '
				 '<jane.doe@kernel.org>|2024-10-16T14:14:55+03:00|'
				 'x86/mm: Ours\n\nWhy.\n\nSigned-off-by: Jane Doe '
				 '<jane.doe@kernel.org>')
		self.assertTrue(backport.startswith(
			'Kirill A. Shutemov <kirill.shutemov@linux.intel.com>|'
			'Jane Doe <jane.doe@kernel.org>|'), backport)
		self.assertTrue(backport.endswith(
			'\nSigned-off-by: Kirill A. Shutemov <kirill.shutemov@'
			'linux.intel.com>\nSigned-off-by: Jane Doe '
			'<jane.doe@kernel.org>'), backport)
		self.assertEqual(wt.tree_of('HEAD'), git.tree_of(topic))
		self.assertEqual(git.rev(overlay.TOPIC), topic)

	def test_a_placeholder_sender_stops_before_anything_runs(self) -> None:
		with self.assertRaisesRegex(LabError, 'is the placeholder'):
			series.Series(request.SeriesRequest(
				series.Git(self.root), 'b', 't', self.root,
				self.root, self.root / 'results', 1, base_name='x',
				sender=('Hibernate Lab', ME)))
		self.assertFalse((self.root / 'results').exists())

	def test_git_config_is_the_sender(self) -> None:
		tree = self.fake.build()
		# The import's local identity, as trees imported before this
		# change carry it, would shadow the user's.
		tree.git.run(['config', 'user.name', 'hibernate-lab'])
		tree.git.run(['config', 'user.email', 'hibernate-lab@invalid'])
		home = self.root / 'home'
		home.mkdir()
		(home / '.gitconfig').write_text('[user]\n\tname = Jane Doe\n'
						 '\temail = jane.doe@kernel.org\n')
		with mock.patch.dict(os.environ, {'HOME': str(home),
						  'XDG_CONFIG_HOME': str(home),
						  'GIT_CONFIG_SYSTEM': os.devnull}):
			os.environ.pop('GIT_CONFIG_GLOBAL', None)
			self.assertEqual(identity.read_git_sender(tree.git), SENDER)
		with mock.patch.dict(os.environ, {'HOME': str(self.root),
						  'XDG_CONFIG_HOME': str(self.root),
						  'GIT_CONFIG_SYSTEM': os.devnull}):
			os.environ.pop('GIT_CONFIG_GLOBAL', None)
			self.assertEqual(identity.read_git_sender(tree.git), ('', ''))
		identity.drop_import_identity(tree.git)
		self.assertEqual(tree.git.text(['config', '--local', '--get-regexp',
						'^user'], check=False), '')
		# A user's own local identity is theirs: kept.
		tree.git.run(['config', 'user.email', 'me@kernel.org'])
		identity.drop_import_identity(tree.git)
		self.assertEqual(tree.git.text(['config', '--local', 'user.email']),
				 'me@kernel.org')


if __name__ == '__main__':
	unittest.main()
