# SPDX-License-Identifier: GPL-2.0
"""Who sends the mails, and what that changes in the patches.

The overlay and the topic branch keep a fixed identity (commit.txt's
Author:, so one overlay gives the same commit ids); the mails are the
sender's (git's user.name/user.email; judge_sender refuses a placeholder):
the sender is the author of our own patches (a backport, whose message
starts 'commit <sha> upstream.', keeps its author), the committer, and
signs off after each patch's trailers.  make test rehearses with
REHEARSAL_SENDER, its mails marked as not for sending."""

import email.utils
import re
from typing import Optional, Tuple

from hiblab.errors import LabError
from hiblab.git import Git

# The sender's identity.  The overlay and the topic branch keep a fixed
# identity (commit.txt's Author:, so one overlay always gives the same
# commit ids); the mails may not: b4 sends as git's user.name/user.email,
# and every patch must carry that person's Signed-off-by.
Identity = Tuple[str, str]	# (name, email)


# What make test rehearses with on a machine that has no identity: an
# address that cannot receive mail (RFC 2606 .invalid), and the mails are
# written under REHEARSAL_DIR with REHEARSAL_PREFIX in their subjects.
REHEARSAL_SENDER: Identity = ('Rehearsal Not-For-Sending',
			      'rehearsal@hibernate-lab.invalid')


REHEARSAL_DIR = 'rehearsal-not-for-sending'


REHEARSAL_PREFIX = 'NOT-FOR-SENDING'


# base.pins wrote this into the kernel tree's own config before the
# identity mattered; a repository-local identity shadows the user's
# global one, so make series drops it (see drop_import_identity).
IMPORT_IDENTITY: Identity = ('hibernate-lab', 'hibernate-lab@invalid')


_PLACEHOLDER_NAMES = {'hibernate lab', 'hibernate-lab'}


# Reserved for documentation and tests (RFC 2606, RFC 6761): no person
# receives mail there.
_RESERVED_DOMAIN = re.compile(r'(^|\.)(example\.(com|net|org)|example|invalid|'
			      r'test|localhost|localdomain)$', re.I)


_SOB = re.compile(r'^Signed-off-by:\s*(.*?)\s*$', re.I)


_TRAILER = re.compile(r'^(?:[A-Za-z0-9-]+:\s|\[|\s)')


# A backport: the stable rules' first body line, either form.
_UPSTREAM = re.compile(r'^(?:commit ([0-9a-f]{40}) upstream\.?|'
		       r'\[ Upstream commit ([0-9a-f]{40}) \])\s*$', re.M)


def format_identity(who: Identity) -> str:
	"""'Name <email>' as a Signed-off-by line has it (no quoting)."""
	return ' '.join(filter(None, (who[0], f'<{who[1]}>' if who[1] else '')))


def placeholder_problem(who: Identity) -> str:
	"""Why an identity cannot sign off a patch ('' when it can): empty,
	not an address, the lab's own placeholder, or a domain reserved for
	examples (example.org, *.invalid, ...)."""
	name, addr = who[0].strip(), who[1].strip()
	if not name and not addr:
		return 'is not set'
	if not name or not addr:
		return 'has an empty ' + ('name' if not name else 'email')
	if name.lower() in _PLACEHOLDER_NAMES or \
	   addr.lower().startswith('hibernate-lab@'):
		return 'is the placeholder'
	domain = addr.rpartition('@')[2]
	if '@' not in addr or not domain or '.' not in domain.strip('.'):
		return f'has no real email address ({addr!r})'
	if _RESERVED_DOMAIN.search(domain):
		return f'has an address in {domain}, a domain reserved for examples'
	return ''


def judge_sender(who: Identity) -> Identity:
	"""The sender, or a LabError that stops make series before anything
	runs: mails signed off by a placeholder must not be prepared."""
	problem = placeholder_problem(who)
	if problem:
		raise LabError(f'sender identity {format_identity(who)!r} '
			       f'{problem}',
			       'set git config --global user.name/user.email to '
			       'yours (make series signs off every patch with it)')
	return who


def upstream_commit(message: str) -> str:
	"""The mainline commit a backport's message names in its first
	body line ('commit <sha> upstream.' or '[ Upstream commit <sha> ]'),
	'' for our own patches."""
	body = message.split('\n\n', 1)[1] if '\n\n' in message else ''
	m = _UPSTREAM.match(body.lstrip('\n'))
	return (m[1] or m[2]) if m else ''


def sob_identity(line: str) -> Optional[Identity]:
	m = _SOB.match(line)
	return email.utils.parseaddr(m[1]) if m else None


def sign_off(message: str, sender: Identity) -> str:
	"""The message with the sender's Signed-off-by appended after its
	trailers, unless the sender has signed off already; sign-offs by a
	placeholder identity (the overlay's fixed one) are dropped, as no
	person gave them."""
	lines = [l for l in message.rstrip().split('\n')
		 if not (sob_identity(l) and placeholder_problem(sob_identity(l)))]
	while lines and not lines[-1].strip():
		lines.pop()
	signed = [w for w in map(sob_identity, lines) if w]
	if any(w[1].lower() == sender[1].lower() for w in signed):
		return '\n'.join(lines) + '\n'
	last = '\n'.join(lines).rsplit('\n\n', 1)
	in_trailers = len(last) == 2 and all(_TRAILER.match(l) for l in
					     last[1].split('\n'))
	sob = f'Signed-off-by: {format_identity(sender)}'
	return '\n'.join(lines) + ('\n' if in_trailers else '\n\n') + sob + '\n'


def mail_author(commit_author: Identity, message: str,
		sender: Identity) -> Identity:
	"""A patch's author in the mails: a backport keeps its original
	author (the overlay's Author:), our own patches are the sender's."""
	return commit_author if upstream_commit(message) else sender


def read_git_sender(git: Git) -> Identity:
	"""user.name and user.email as git sees them in the tree (and so in
	its series worktree): the environment's GIT_CONFIG_*, the tree's
	config, the user's global config and the system's.  The import's
	placeholder in the tree's own config does not count (it shadowed the
	user's; drop_import_identity removes it).  Reads only: make series
	refuses a placeholder before it takes the cache lock."""
	env = {'GIT_CONFIG_NOSYSTEM': '0'}
	def get(key: str, imported: str) -> str:
		out = git.run(['config', '--show-scope', '--get-all', key],
			      env=env, check=False).decode()
		values = [v for scope, _, v in (l.partition('\t') for l in
						out.splitlines())
			  if (scope, v) != ('local', imported)]
		return values[-1].strip() if values else ''
	return get('user.name', IMPORT_IDENTITY[0]), \
		get('user.email', IMPORT_IDENTITY[1])


def drop_import_identity(git: Git) -> None:
	"""Removes the placeholder identity the base import used to write
	into the tree's own config, which would shadow the user's (only
	those exact values: anything else there is the user's)."""
	for key, value in zip(('user.name', 'user.email'), IMPORT_IDENTITY):
		if git.text(['config', '--local', '--get', key],
			    check=False) == value:
			git.run(['config', '--local', '--unset', key])


def sign_branch(wt: Git, base: str, sender: Identity) -> None:
	"""Rewrites the branch checked out in wt (base..HEAD) for the sender:
	author of our own patches (a backport keeps its author), committer of
	all, and their Signed-off-by after the trailers.  Trees are
	unchanged."""
	commits = wt.text(['rev-list', '--reverse', f'{base}..HEAD']).split()
	parent = base
	for c in commits:
		fields = wt.text(['log', '-1', '--format=%an%x00%ae%x00%aD%x00'
				  '%cD%x00%T', c]).split('\0')
		message = wt.run(['log', '-1', '--format=%B', c]).decode()
		name, addr = mail_author((fields[0], fields[1]), message, sender)
		env = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': addr,
		       'GIT_AUTHOR_DATE': fields[2],
		       'GIT_COMMITTER_NAME': sender[0],
		       'GIT_COMMITTER_EMAIL': sender[1],
		       'GIT_COMMITTER_DATE': fields[3]}
		parent = wt.text(['commit-tree', fields[4], '-p', parent, '-F',
				  '-'], env=env,
				 stdin=sign_off(message, sender).encode())
	wt.run(['reset', '-q', '--hard', parent])
