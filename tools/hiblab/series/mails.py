# SPDX-License-Identifier: GPL-2.0
"""The mails `b4 send -o` wrote: who they go to and who they say wrote and
signed off each patch, judged against MAINTAINERS-notes and the sender."""

import dataclasses
import email
import email.policy
import email.utils
import re
from pathlib import Path
from typing import List, Sequence, Set, Tuple

from hiblab.errors import LabError
from hiblab.series.identity import sob_identity, upstream_commit
from hiblab.verdict import FAIL, PASS, Verdict

NOTES_FILE = 'MAINTAINERS-notes'


def recipients_begin(base: str, series: str = '') -> str:
	"""The line before a series' recipients block (series: its name;
	'' for a base that sends one series)."""
	what = f'{base} {series}' if series else base
	return f'--- recipients of the {what} series (checked by make series) ---'


RECIPIENTS_END = '--- end of recipients ---'


def expected_recipients(repo: Path, base: str, series: str = '') -> Set[str]:
	"""Addresses listed in MAINTAINERS-notes' block for the series."""
	return parse_recipients((repo / NOTES_FILE).read_text(), base, series)


def parse_recipients(text: str, base: str, series: str = '') -> Set[str]:
	"""The To:/Cc: addresses of the series' block in MAINTAINERS-notes
	(text), lower case: that is how the mails' recipients compare."""
	begin = recipients_begin(base, series)
	if begin not in text or RECIPIENTS_END not in text.split(begin, 1)[1]:
		raise LabError(f'{NOTES_FILE} has no recipients block for the '
			       f'{base} {series or ""} series'.replace('  ', ' '),
			       f'add one between "{begin}" and "{RECIPIENTS_END}"')
	block = text.split(begin, 1)[1].split(RECIPIENTS_END, 1)[0]
	return {a.lower() for _, a in email.utils.getaddresses(
		[l.split(':', 1)[1] for l in block.splitlines()
		 if l.startswith(('To:', 'Cc:'))]) if a}


@dataclasses.dataclass(frozen=True)
class Mail:
	"""The recipients of one mail `b4 send -o` wrote, and who it says
	wrote and signed off the patch (addresses only)."""
	name: str
	to: Tuple[str, ...]
	cc: Tuple[str, ...]
	sender: str = ''	# From:
	author: str = ''	# the body's From: line (b4 writes one when
				# the author is not the sender), else sender
	upstream: str = ''	# a backport's mainline commit
	signoffs: Tuple[str, ...] = ()	# Signed-off-by:, in order
	trailers: Tuple[str, ...] = ()	# every address in the trailers


def mail_recipients(path: Path) -> Tuple[List[str], List[str]]:
	mail = read_mail(path)
	return list(mail.to), list(mail.cc)


def read_mail(path: Path) -> Mail:
	return parse_mail(path.name, path.read_bytes())


def parse_mail(name: str, data: bytes) -> Mail:
	"""The To: and Cc: addresses of a mail, as b4 wrote them, and the
	sender, author and sign-offs of its commit message (the body up to
	the '---' line)."""
	msg = email.message_from_bytes(data, policy=email.policy.default)
	def addrs(field: str) -> Tuple[str, ...]:
		return tuple(a for _, a in email.utils.getaddresses(
			msg.get_all(field, [])))
	sender = (addrs('From') or ('',))[0]
	body = msg.get_body(('plain',))
	text = body.get_content() if body else ''
	log = re.split(r'^---$', text, maxsplit=1, flags=re.M)[0]
	author = re.match(r'From: *(.*)\n\n', log)
	if author:
		log = log[author.end():]
	# A trailer's '# ...' is a comment (stable-kernel-rules.rst:
	# "Cc: <stable+noautosel@kernel.org> # reason"); b4 mails the
	# address before it.
	trailers = [t.split('#', 1)[0] for t in
		    re.findall(r'^[A-Za-z0-9-]+: *(.*@.*)$', log, re.M)]
	return Mail(name, addrs('To'), addrs('Cc'), sender,
		    email.utils.parseaddr(author[1])[1] if author else sender,
		    upstream_commit('subject\n\n' + log),
		    tuple(w[1] for w in map(sob_identity, log.splitlines()) if w),
		    tuple(a for _, a in email.utils.getaddresses(trailers)))


def identity_error(mail: Mail, me: str) -> str:
	"""'' when a patch mail is the sender's (me): From: the sender, the
	sender's Signed-off-by once and last, and the sender as author
	unless it is a backport, which keeps its original author: the one
	who signed it off first."""
	me = me.lower()
	sobs = [a.lower() for a in mail.signoffs]
	if mail.sender.lower() != me:
		return f'From: {mail.sender or "nobody"}, not the sender {me}'
	if sobs.count(me) != 1 or sobs[-1] != me:
		return f'the sender\'s Signed-off-by ({me}) is there ' \
			f'{sobs.count(me)} times' + (', not last' if me in sobs
						     else '')
	if not mail.upstream and mail.author.lower() != me:
		return f'author {mail.author}, not the sender {me} (only a ' \
			'backport keeps its author)'
	if mail.upstream and mail.author.lower() != sobs[0]:
		return f'a backport of {mail.upstream[:12]} by {mail.author}, ' \
			f'not its original author {sobs[0]} (the first ' \
			'Signed-off-by)'
	return ''


def judge_mail(mail: Mail, want: Set[str], me: str,
	       named: Sequence[str] = ()) -> Verdict:
	"""A mail's To: and Cc: must be exactly the MAINTAINERS-notes block
	(want), but for the sender (me) and the people b4 adds from the
	trailers: a patch's own, and on the cover letter every patch's
	(named); To: must not be empty.  A patch mail must be the sender's
	(identity_error)."""
	name = f'series/mail/{mail.name[:4]}'
	if not mail.to:
		return Verdict(name, FAIL, 'no To: (b4 send refuses a series '
			       'without recipients)')
	named = {a.lower() for a in tuple(mail.trailers) + tuple(named)} - want
	got = {a.lower() for a in mail.to + mail.cc} - {me.lower()} - named
	missing, extra = sorted(want - got), sorted(got - want)
	if missing or extra:
		return Verdict(name, FAIL, f'recipients differ from {NOTES_FILE}: '
			       f'missing {", ".join(missing) or "none"}, extra '
			       f'{", ".join(extra) or "none"}')
	who = identity_error(mail, me) if not mail.name.startswith('0000-') \
		else ''
	if who:
		return Verdict(name, FAIL, who)
	return Verdict(name, PASS, f'{mail.name}: To: {", ".join(mail.to)}; '
		       f'Cc: {", ".join(mail.cc)}')


def judge_mails(mails: Sequence[Mail], want: Set[str],
		me: str) -> List[Verdict]:
	"""judge_mail of every mail; b4 copies the cover letter (0000) to
	everyone a patch's trailers name."""
	named = [a for m in mails for a in m.trailers]
	return [judge_mail(m, want, me, named if m.name.startswith('0000-')
			   else ()) for m in mails]
