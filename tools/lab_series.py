# SPDX-License-Identifier: GPL-2.0
"""The topic branch as a mail series: b4 prep, checkpatch, per-commit
builds, b4 send -o, and a git am round trip.

b4 works on a branch of its own (b4/hibernate-lab) in a worktree of the
kernel tree, reset to the topic branch on every run, so b4's cover-letter
commit never lands on the developer's topic.  The tools never send mail:
b4 runs with sendemail.smtpserver=/bin/false and `b4 send -o DIR`, which
only writes the messages.

The mails are the sender's (git's user.name/user.email; judge_sender
refuses a placeholder): the b4 branch is the topic rewritten with the
sender as author of our own patches (a backport, whose message starts
'commit <sha> upstream.', keeps its author), as committer, and with the
sender's Signed-off-by after each patch's trailers.  make test rehearses
with REHEARSAL_SENDER, its mails marked as not for sending.

Stages stop the run at the first failure, with one line saying why:
cover letter, recipients, checkpatch, per-commit builds, mails, round trip.

Running is apart from judging: Series runs the processes and returns what
they did as records (Run, CheckpatchRun, BuildRun, Mail, RoundTrip); the
judge_* functions turn records into verdicts without running anything, so
tools/lab_series_test.py feeds them the captured output of real runs.
"""

import dataclasses
import email
import email.policy
import email.utils
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import (Callable, Dict, Iterator, List, Optional, Sequence, Set,
		    Tuple)

import lab_guest
import lab_kunit
import lab_paths
from lab_errors import LabError
from lab_git import Git, prepare_worktree
from lab_verdict import FAIL, PASS, Verdict

SERIES_BRANCH = 'b4/hibernate-lab'
COVER_LETTER = 'cover-letter.txt'
NOTES_FILE = 'MAINTAINERS-notes'
# A cold build of one commit takes minutes; one that has not finished in
# half an hour hangs (or the machine is far too busy to judge anything).
RUN_TIMEOUT = 1800
# MAINTAINERS-notes carries the recipients b4 must produce between these.
# One block per base: its series goes to the recipients of that tree.


def recipients_begin(base: str) -> str:
	return f'--- recipients of the {base} series (checked by make series) ---'


RECIPIENTS_END = '--- end of recipients ---'
_TOTAL = re.compile(r'^total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?'
		    r'(\d+) lines checked', re.M)
_CP_FIRST_LINE = re.compile(r'^(?:ERROR|WARNING|CHECK):.*$', re.M)


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
# lab_base wrote this into the kernel tree's own config before the
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


@dataclasses.dataclass(frozen=True)
class SeriesMutant:
	"""A change that makes the series unfit to send, and where it stops.

	mutants/series/<name>.patch: 'Inserts-after: NNNN' (a step number,
	the new commit follows that step), 'Stops-at: <check>', then a git
	diff against the topic branch at that step.
	"""
	name: str
	path: Path
	after: int
	stops_at: str


@dataclasses.dataclass(frozen=True)
class SeriesRequest:
	tree: Git		# the kernel tree holding base and topic
	base: str		# the pristine base commit
	topic: str		# the topic branch's commit
	cache: Path
	repo: Path
	results: Path
	jobs: int
	base_name: str		# the base's section in linux-base.txt
	builds: bool = True	# build every commit (the slow stage)
	# The configurations every commit is built with: 'guest' (the lab's)
	# and 'kunit' (the guest config plus our KUnit suites).
	configs: Tuple[str, ...] = ('guest', 'kunit')
	mutant: Optional[SeriesMutant] = None
	# Who sends the mails: author of our own patches, Signed-off-by on
	# every one (judge_sender refuses a placeholder before the run).
	# rehearsal: make test's run, with REHEARSAL_SENDER instead, in a
	# worktree of its own and with the mails marked not for sending.
	sender: Identity = ('', '')
	rehearsal: bool = False


# Records: what the processes did, nothing judged yet.

@dataclasses.dataclass(frozen=True)
class Run:
	"""One process run_logged ran: its command, exit code and output,
	and the log the output was appended to.  A run killed at its timeout
	has timed_out set, rc -1 and the output up to the kill."""
	argv: Tuple[str, ...]
	rc: int
	output: str
	log: Path
	timed_out: bool = False
	timeout: float = RUN_TIMEOUT


@dataclasses.dataclass(frozen=True)
class CheckpatchRun:
	"""checkpatch.pl on one patch of `b4 prep -p` (NNNN-<slug>.patch)."""
	patch: Path
	run: Run

	@property
	def step(self) -> str:
		return self.patch.name[:4]


@dataclasses.dataclass(frozen=True)
class BuildRun:
	"""One commit built with one configuration.  `make` holds the steps
	in order (allnoconfig, vmlinux), up to the first that failed; the W=1
	runs recompile the objects made from the touched .c files at the
	parent and at the commit, None when there was nothing to recompile."""
	step: int		# the commit's number in the series, from 1
	commit: str
	subject: str
	label: str		# the configuration: 'guest' or 'kunit'
	touched: Tuple[str, ...]	# the .c files the commit changes
	make: Tuple[Run, ...]
	w1_parent: Optional[Run] = None
	w1_commit: Optional[Run] = None


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


@dataclasses.dataclass(frozen=True)
class RoundTrip:
	"""`git am` of the mails onto the base: the tree it made (or its
	error) and the tree it must equal."""
	base: str		# the commit the mails were applied to
	what: str		# whose tree `want` is: 'topic' or 'b4 branch'
	want: str
	got: str = ''
	am_error: str = ''	# git am's failure; '' when the mails applied


def run_logged(argv: Sequence[str], cwd: Path, log: Path,
	       env: Optional[Dict[str, str]] = None,
	       timeout: float = RUN_TIMEOUT) -> Run:
	"""Runs argv and appends '$ argv' and its output to log.  A timeout
	is recorded, not raised, so the judge can name what hung."""
	try:
		proc = subprocess.run(list(argv), cwd=cwd, env=env,
				      stdin=subprocess.DEVNULL,
				      stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, check=False,
				      timeout=timeout)
		raw, rc, timed_out = proc.stdout, proc.returncode, False
	except subprocess.TimeoutExpired as e:
		raw, rc, timed_out = e.output or b'', -1, True
	out = raw.decode(errors='replace')
	with log.open('a') as f:
		f.write(f'$ {" ".join(argv)}\n{out}')
		if timed_out:
			f.write(f'[killed: timed out after {timeout:.0f} s]\n')
	return Run(tuple(argv), rc, out, log, timed_out, timeout)


def b4_env(author: Identity,
	   cover: Optional[Path] = None) -> Dict[str, str]:
	"""b4's environment: the sender (author) as git's identity, a
	cover letter commit, and a mail server that cannot send."""
	config = [('user.name', author[0]),
		  ('user.email', author[1]),
		  # Never mail anything: -o only writes files, and a
		  # real send would run /bin/false.
		  ('sendemail.smtpserver', '/bin/false'),
		  ('b4.prep-cover-strategy', 'commit')]
	if cover:
		# b4 prep --edit-cover runs the editor on its temp file.
		config.append(('core.editor', f'cp {cover}'))
	env = dict(os.environ, GIT_CONFIG_COUNT=str(len(config)))
	for i, (k, v) in enumerate(config):
		env[f'GIT_CONFIG_KEY_{i}'] = k
		env[f'GIT_CONFIG_VALUE_{i}'] = v
	return env


def parse_series_mutant(path: Path) -> SeriesMutant:
	text = path.read_text()
	head = text.split('\ndiff --git ', 1)[0]
	fields = dict(re.findall(r'^([A-Z][a-z-]+): *(.*)$', head, re.M))
	if 'diff --git ' not in text or not fields.get('Stops-at') or \
	   not re.fullmatch(r'\d{4}', fields.get('Inserts-after', '')):
		raise LabError(f'{path}: malformed series mutant', 'it needs '
			       'Inserts-after: NNNN and Stops-at: lines, then a '
			       'git diff')
	return SeriesMutant(path.stem, path.resolve(), int(fields['Inserts-after']),
			    fields['Stops-at'])


def mutant_commit_message(m: SeriesMutant, text: str,
			  author: Tuple[str, str]) -> str:
	"""The mutant commit's message, from the patch's Why: line (text)."""
	why = textwrap.fill(re.search(r'^Why: *(.*)$', text, re.M)[1], 72)
	return f'x86/power: Series mutant {m.name}\n\n{why}\n\n' \
		f'Signed-off-by: {author[0]} <{author[1]}>'


def read_cover(repo: Path, base: str) -> str:
	path = lab_paths.overlay_dir(repo, base) / COVER_LETTER
	if not path.is_file():
		raise LabError(f'{path} is missing', 'write the cover letter '
			       '(subject line, blank line, body)')
	text = path.read_text()
	if 'EDITME' in text:
		raise LabError(f'{path} still says EDITME (b4 send refuses it)',
			       'finish the cover letter first')
	return text


def expected_recipients(repo: Path, base: str) -> Set[str]:
	"""Addresses listed in MAINTAINERS-notes' block for the base."""
	return parse_recipients((repo / NOTES_FILE).read_text(), base)


def parse_recipients(text: str, base: str) -> Set[str]:
	"""The To:/Cc: addresses of the base's block in MAINTAINERS-notes
	(text), lower case: that is how the mails' recipients compare."""
	begin = recipients_begin(base)
	if begin not in text or RECIPIENTS_END not in text.split(begin, 1)[1]:
		raise LabError(f'{NOTES_FILE} has no recipients block for the '
			       f'{base} series', f'add one between "{begin}" and '
			       f'"{RECIPIENTS_END}"')
	block = text.split(begin, 1)[1].split(RECIPIENTS_END, 1)[0]
	return {a.lower() for _, a in email.utils.getaddresses(
		[l.split(':', 1)[1] for l in block.splitlines()
		 if l.startswith(('To:', 'Cc:'))]) if a}


_FINDING = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+):', re.M)
# "   UNKNOWN_COMMIT_ID in 3, 4, 6: why" in the cover letter's notes.
_JUSTIFIED = re.compile(r'^\s+([A-Z][A-Z0-9_]+) in ([\d, ]+):', re.M)


def justified_findings(cover: str) -> Dict[int, Set[str]]:
	"""Patch number -> checkpatch types the cover letter justifies."""
	out: Dict[int, Set[str]] = {}
	for m in _JUSTIFIED.finditer(cover):
		for n in re.findall(r'\d+', m[2]):
			out.setdefault(int(n), set()).add(m[1])
	return out


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
	trailers = re.findall(r'^[A-Za-z0-9-]+: *(.*@.*)$', log, re.M)
	return Mail(name, addrs('To'), addrs('Cc'), sender,
		    email.utils.parseaddr(author[1])[1] if author else sender,
		    upstream_commit('subject\n\n' + log),
		    tuple(w[1] for w in map(sob_identity, log.splitlines()) if w),
		    tuple(a for _, a in email.utils.getaddresses(trailers)))


def objects_built_from(build: Path, sources: List[str]) -> List[str]:
	"""Objects in a build directory whose recorded dependencies name one
	of the sources (a .c file may be #included, as ident_map.c is)."""
	objs = []
	for cmd in sorted(build.rglob('.*.o.cmd')):
		text = cmd.read_text(errors='replace')
		if any(re.search(rf'/{re.escape(s)}(\s|$)', text, re.M)
		       for s in sources):
			obj = cmd.parent / cmd.name[1:-len('.cmd')]
			if obj.exists():
				objs.append(str(obj.relative_to(build)))
	return objs


def w1_command(make: List[str], objs: List[str]) -> List[str]:
	"""`make W=1 <objs>` for single objects, serially.  arch/x86/Makefile
	lists arch/x86/power/ in drivers-y, so kbuild reaches a goal in it both
	from obj=arch/x86 (whose %.o rule matches power/hibernate.o) and from
	obj=arch/x86/power: with -j2 the two compiles race for the same
	.hibernate.o.d, and fixdep fails on whichever finds it gone.  -k: an
	object the parent does not have must not hide the rest."""
	return [a for a in make if not a.startswith('-j')] + \
		['-j1', '-k', 'W=1'] + objs


def w_key(warning: str) -> str:
	"""A compiler warning without its path prefix and line/column, so the
	same warning is recognised before and after a change moves it."""
	m = re.search(r'([\w./-]+\.[ch]):\d+(?::\d+)?: (.*)$', warning)
	if not m:
		return warning.strip()
	path = m[1].split('/worktrees/', 1)[-1].split('/', 1)[-1]
	return f'{path}: {m[2]}'


# Judges: records in, verdicts (or a LabError that stops the run) out.
# Nothing here runs a process or writes a file.

def passed(verdicts: Sequence[Verdict]) -> bool:
	return all(v.status == PASS for v in verdicts)


def judge_finished(run: Run, what: str) -> Run:
	"""The run, unless it was killed at its timeout: a hang is not a
	finding about the series, so it stops the run naming what hung."""
	if run.timed_out:
		raise LabError(f'{what} timed out after {run.timeout:.0f} s',
			       f'see the end of {run.log} for where it hung, '
			       'and rerun on an otherwise idle machine')
	return run


def judge_b4(run: Run, what: str) -> str:
	"""b4's output; a failure stops the run with b4's CRITICAL line
	(or its last line)."""
	judge_finished(run, f'b4 {what}')
	out = run.output
	if run.rc != 0:
		crit = [l for l in out.splitlines() if 'CRITICAL' in l]
		raise LabError(f'b4 {what} failed: ' +
			       (crit[0] if crit else out.strip()
				.splitlines()[-1] if out.strip() else
				f'exit {run.rc}'),
			       f'see {run.log}')
	return out


def judge_auto_to_cc(out: str) -> None:
	"""b4 prep --auto-to-cc quietly adds nobody when get_maintainer.pl
	cannot run; its output names the script when it did run."""
	if 'get_maintainer.pl' not in out:
		raise LabError('b4 prep --auto-to-cc did not run '
			       'scripts/get_maintainer.pl (it must be '
			       'executable in the tree)',
			       'chmod +x scripts/get_maintainer.pl')


def checkpatch_verdict(name: str, output: str,
		       justified: Set[str] = frozenset()) -> Verdict:
	"""PASS when checkpatch found nothing, or only warnings and checks of
	types the cover letter justifies for this patch; never on an error."""
	m = _TOTAL.search(output)
	if not m:
		return Verdict(name, FAIL, 'checkpatch printed no summary: ' +
			       (output.strip().splitlines() or ['no output'])[-1])
	errors, warnings, checks = int(m[1]), int(m[2]), int(m[3] or 0)
	detail = f'{errors} errors, {warnings} warnings, {checks} checks, ' \
		f'{m[4]} lines'
	found = _FINDING.findall(output)
	open_ = [f'{level}:{kind}' for level, kind in found
		 if level == 'ERROR' or kind not in justified]
	if errors or open_ or len(found) < errors + warnings + checks:
		firsts = _CP_FIRST_LINE.findall(output)
		first = next((f for f in firsts if f.startswith('ERROR')),
			     firsts[0] if firsts else '')
		return Verdict(name, FAIL, detail + (f'; first: {first}'
						     if first else ''))
	if found:
		detail += '; justified in the cover letter: ' + ', '.join(
			sorted({kind for _, kind in found}))
	return Verdict(name, PASS, detail)


def cover_number(step: int, mutant: Optional[SeriesMutant]) -> int:
	"""The cover letter numbers the real series: a mutant's commit is 0
	(nothing justified for it), the patches after it move down by one."""
	if mutant and step > mutant.after:
		return 0 if step == mutant.after + 1 else step - 1
	return step


def judge_checkpatch(runs: Sequence[CheckpatchRun],
		     justified: Dict[int, Set[str]],
		     mutant: Optional[SeriesMutant] = None) -> List[Verdict]:
	"""One verdict per patch, then a stop when any of them failed."""
	verdicts = []
	for r in runs:
		judge_finished(r.run, f'checkpatch.pl on {r.patch.name}')
		n = cover_number(int(r.step), mutant)
		verdicts.append(checkpatch_verdict(
			f'series/checkpatch/{r.step}', r.run.output,
			justified.get(n, set())))
	if not passed(verdicts):
		verdicts.append(Verdict('series', FAIL, 'stopped: a patch has '
					'checkpatch findings (see '
					f'{runs[-1].run.log})'))
	return verdicts


def make_goals(argv: Sequence[str]) -> str:
	"""What a make command line builds ('vmlinux', 'W=1 a.o b.o')."""
	return ' '.join(a for a in argv[3:] if not a.startswith('-') and
			('=' not in a or a == 'W=1'))


def make_error(run: Run) -> str:
	"""'' when make succeeded, else its first line naming an error."""
	if run.rc == 0:
		return ''
	errs = [l for l in run.output.splitlines() if 'error' in l]
	return (errs or run.output.strip().splitlines() or
		['make failed'])[0].strip()


def w1_warnings(output: str, touched: Sequence[str]) -> List[str]:
	"""The W=1 warnings (and errors) of a make output that name a
	touched file."""
	return [l for l in output.splitlines() if ('warning:' in l or
		'error:' in l) and any(f in l for f in touched)]


def judge_w1(parent: Run, commit: Run, touched: Sequence[str]) -> str:
	"""'' when the commit adds no W=1 warning in the files it touches
	(warnings the parent has already do not count: hibernate.c carries
	kernel-doc ones from upstream), else the first new one."""
	before = {w_key(w) for w in w1_warnings(parent.output, touched)}
	new = [w for w in w1_warnings(commit.output, touched)
	       if w_key(w) not in before]
	# W=1 can fail on warnings the parent has too (kernel-doc with
	# -Werror): only a failure the commit introduces counts.
	if new or (commit.rc != 0 and parent.rc == 0):
		return 'W=1: ' + (new or ['make W=1 failed'])[0].strip()
	return ''


def build_error(b: BuildRun) -> str:
	"""'' when the commit builds and adds no W=1 warning, else why not."""
	w1 = [r for r in (b.w1_parent, b.w1_commit) if r]
	for r in b.make + tuple(w1):
		judge_finished(r, f'make {make_goals(r.argv)} of commit '
			       f'{b.step} ({b.label} config)')
	err = next((e for e in map(make_error, b.make) if e), '')
	if err or len(w1) < 2:
		return err
	return judge_w1(b.w1_parent, b.w1_commit, b.touched)


def judge_build(b: BuildRun) -> List[Verdict]:
	"""The commit's build verdict, and a stop when it failed."""
	name = f'series/build/{b.step:04d}-{b.label}'
	err = build_error(b)
	if err:
		return [Verdict(name, FAIL, f'"{b.subject}": {err}'),
			Verdict('series', FAIL, f'stopped: commit {b.step} '
				f'({b.commit[:12]}) does not build on its own')]
	return [Verdict(name, PASS, f'"{b.subject}" builds; no new W=1 '
			f'warning in {", ".join(b.touched) or "no .c file"}')]


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


def judge_round_trip(rt: RoundTrip) -> Verdict:
	"""git am of the mails must give the tree the mails were made from;
	mails that do not apply stop the run."""
	if rt.am_error:
		raise LabError(f'git am of the written mails failed ({rt.am_error})')
	same = rt.got == rt.want
	return Verdict('series/round-trip', PASS if same else FAIL,
		       f'git am onto {rt.base[:12]}: tree {rt.got[:12]} '
		       f'{"==" if same else "!="} {rt.what} tree {rt.want[:12]}')


def judge_mutant(m: SeriesMutant, got: Sequence[Verdict]) -> Verdict:
	"""A series mutant must fail its Stops-at check and stop the run."""
	failed = [v for v in got if v.status == FAIL]
	hit = next((v for v in failed if v.name == m.stops_at), None)
	stopped = any(v.name == 'series' and 'stopped' in v.detail
		      for v in failed)
	name = f'series-mutant/{m.name}'
	if hit and stopped:
		return Verdict(name, PASS, f'stopped at {hit.name}: {hit.detail}')
	# The run's own reason, e.g. a later patch no longer applying on top
	# of the mutant commit, which no stage names.
	why = next((v.detail for v in failed if v.name == 'series'), '')
	return Verdict(name, FAIL, f'expected a stop at {m.stops_at}; failed: ' +
		       (', '.join(v.name for v in failed) or 'nothing') +
		       (f' ({why})' if why else ''))


class Series:
	"""One `make series` run; run() returns the verdicts.  Its methods
	run processes and hand records to the judge_* functions."""

	def __init__(self, req: SeriesRequest,
		     progress: Callable[[str], None] = print) -> None:
		self.req = req
		self.progress = progress
		self.verdicts: List[Verdict] = []
		self.sender = REHEARSAL_SENDER if req.rehearsal else \
			judge_sender(req.sender)
		# A mutant and make test's rehearsal get a worktree and branch
		# of their own: the real series stays ready to send from
		# worktrees/series-<base>.
		suffix = '-mutant' if req.mutant else \
			'-rehearsal' if req.rehearsal else ''
		self.wt_path = lab_paths.worktree(req.cache, req.base_name,
						  f'series{suffix}')
		self.branch = SERIES_BRANCH + suffix
		# The rehearsal's patches and mails: under a directory that
		# says what they are.
		self.out = req.results / REHEARSAL_DIR if req.rehearsal \
			else req.results

	def log(self, name: str) -> Path:
		return self.req.results / name

	def b4(self, args: Sequence[str], what: str,
	       cover: Optional[Path] = None) -> str:
		return judge_b4(run_logged(['b4'] + list(args), self.wt_path,
					   self.log('b4.log'),
					   b4_env(self.sender, cover)), what)

	def run(self) -> List[Verdict]:
		req = self.req
		req.results.mkdir(parents=True, exist_ok=True)
		try:
			cover = req.results / 'cover-letter.txt'
			cover.write_text(read_cover(req.repo, req.base_name))
			want = expected_recipients(req.repo, req.base_name)
			wt = self._branch()
			self._enroll(cover)
			patches = self._format_patches()
			if self._checkpatch(patches) and \
			   (not req.builds or self._build_each(wt)):
				mails = self._send()
				if self._recipients(mails, want):
					self._round_trip(mails)
		except LabError as e:
			self.verdicts.append(Verdict('series', FAIL, str(e)))
		return self.verdicts

	def _judged(self, verdicts: List[Verdict]) -> bool:
		"""Keeps a stage's verdicts; True when they all passed."""
		self.verdicts += verdicts
		return passed(verdicts)

	def _branch(self) -> Git:
		"""The b4 branch: topic, plus the series mutant if there is one."""
		req = self.req
		wt = prepare_worktree(req.tree, self.wt_path, req.topic)
		wt.run(['config', '--remove-section', f'branch.{self.branch}'],
		       check=False)
		wt.run(['checkout', '-q', '-B', self.branch, req.topic])
		if req.mutant:
			self._insert_mutant(wt, req.mutant)
		self._sign(wt)
		return wt

	def _sign(self, wt: Git) -> None:
		"""Rewrites the b4 branch for the sender: author of our own
		patches (a backport keeps its author), committer of all, and
		their Signed-off-by after the trailers.  Trees are unchanged."""
		commits = wt.text(['rev-list', '--reverse',
				   f'{self.req.base}..HEAD']).split()
		parent = self.req.base
		for c in commits:
			fields = wt.text(['log', '-1', '--format=%an%x00%ae%x00%aD%x00'
					  '%cD%x00%T', c]).split('\0')
			message = wt.run(['log', '-1', '--format=%B', c]).decode()
			name, addr = mail_author((fields[0], fields[1]), message,
						 self.sender)
			env = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': addr,
			       'GIT_AUTHOR_DATE': fields[2],
			       'GIT_COMMITTER_NAME': self.sender[0],
			       'GIT_COMMITTER_EMAIL': self.sender[1],
			       'GIT_COMMITTER_DATE': fields[3]}
			parent = wt.text(['commit-tree', fields[4], '-p', parent,
					  '-F', '-'], env=env, stdin=sign_off(
						  message, self.sender).encode())
		wt.run(['reset', '-q', '--hard', parent])

	def _insert_mutant(self, wt: Git, m: SeriesMutant) -> None:
		commits = self.req.tree.text(['rev-list', '--reverse',
					      f'{self.req.base}..{self.req.topic}'
					      ]).split()
		if not 1 <= m.after <= len(commits):
			raise LabError(f'{m.path.name}: no step {m.after:04d} in a '
				       f'series of {len(commits)}')
		env = dict(os.environ, GIT_AUTHOR_NAME=self.sender[0],
			   GIT_AUTHOR_EMAIL=self.sender[1],
			   GIT_COMMITTER_NAME=self.sender[0],
			   GIT_COMMITTER_EMAIL=self.sender[1])
		wt.run(['reset', '-q', '--hard', commits[m.after - 1]])
		try:
			wt.run(['apply', '--index', str(m.path)])
		except LabError as e:
			raise LabError(f'series mutant {m.name} does not apply after '
				       f'step {m.after:04d} ({e})') from e
		wt.run(['commit', '-q', '-m', mutant_commit_message(
			m, m.path.read_text(), self.sender)], env=env)
		for c in commits[m.after:]:
			wt.run(['cherry-pick', '--allow-empty', c], env=env)

	def _enroll(self, cover: Path) -> None:
		self.progress(f'series: b4 prep in {self.wt_path} '
			      f'(branch {self.branch})')
		self.b4(['prep', '-e', self.req.base], 'prep --enroll')
		self.b4(['prep', '--edit-cover'], 'prep --edit-cover', cover)
		if self.req.rehearsal:
			self.b4(['prep', '--set-prefixes', REHEARSAL_PREFIX],
				'prep --set-prefixes')
		judge_auto_to_cc(self.b4(['prep', '--auto-to-cc'],
					 'prep --auto-to-cc'))

	def _format_patches(self) -> List[Path]:
		out = self.out / 'patches'
		shutil.rmtree(out, ignore_errors=True)
		self.b4(['prep', '-p', str(out)], 'prep --format-patch')
		patches = sorted(p for p in out.glob('*.patch')
				 if not p.name.startswith('0000-'))
		self.progress(f'series: {len(patches)} patches in {out}')
		return patches

	def _checkpatch(self, patches: List[Path]) -> bool:
		justified = justified_findings(read_cover(self.req.repo,
							  self.req.base_name))
		return self._judged(judge_checkpatch(
			self.run_checkpatch(patches), justified, self.req.mutant))

	def run_checkpatch(self, patches: List[Path]) -> List[CheckpatchRun]:
		"""checkpatch --strict on every patch, up to one that hangs."""
		script = self.wt_path / 'scripts' / 'checkpatch.pl'
		runs = []
		for p in patches:
			runs.append(CheckpatchRun(p, run_logged(
				[str(script), '--strict', '--show-types', str(p)],
				self.wt_path, self.log('checkpatch.log'))))
			if runs[-1].run.timed_out:
				break
		return runs

	def _build_each(self, wt: Git) -> bool:
		"""Every commit of the b4 branch builds on its own: the builds
		stop at the first one judged a failure."""
		for b in CommitBuilds(self.req, self.progress).each(wt):
			if not self._judged(judge_build(b)):
				return False
		return True

	def _send(self) -> List[Path]:
		out = self.out / 'mails'
		shutil.rmtree(out, ignore_errors=True)
		self.b4(['send', '-o', str(out), '--no-sign'], 'send -o')
		mails = sorted(out.glob('*.eml'))
		if not mails:
			raise LabError(f'b4 send -o wrote no mails into {out}')
		return mails

	def _recipients(self, mails: List[Path], want: Set[str]) -> bool:
		return self._judged(judge_mails([read_mail(m) for m in mails],
						want, self.sender[1]))

	def _round_trip(self, mails: List[Path]) -> None:
		self.verdicts.append(judge_round_trip(self.run_am(mails)))

	def run_am(self, mails: List[Path]) -> RoundTrip:
		"""git am of the patch mails onto the pristine base, in a
		worktree of its own; the tree to compare with is the b4
		branch's under a series mutant, else the topic's."""
		req = self.req
		am = prepare_worktree(req.tree, lab_paths.worktree(
			req.cache, req.base_name, 'series-am'), req.base)
		env = dict(os.environ, GIT_COMMITTER_NAME=self.sender[0],
			   GIT_COMMITTER_EMAIL=self.sender[1])
		what, want = ('b4 branch', Git(self.wt_path).tree_of('HEAD')) \
			if req.mutant else ('topic', req.tree.tree_of(req.topic))
		rt = RoundTrip(req.base, what, want)
		try:
			am.run(['am', '-q'] + [str(m) for m in mails
					       if not m.name.startswith('0000-')],
			       env=env)
		except LabError as e:
			am.run(['am', '--abort'], check=False)
			return dataclasses.replace(rt, am_error=str(e))
		return dataclasses.replace(rt, got=am.tree_of('HEAD'))


class CommitBuilds:
	"""The per-commit builds of `make series`, in the check worktree
	(where make test's checks build): every commit of the b4 branch with
	every configuration asked for, then W=1 on the objects made from the
	.c files it touches, at its parent and at it."""

	def __init__(self, req: SeriesRequest,
		     progress: Callable[[str], None] = print) -> None:
		self.req = req
		self.progress = progress

	def each(self, wt: Git) -> Iterator[BuildRun]:
		"""A BuildRun per commit and configuration, in series order;
		the caller stops the builds by not asking for the next one."""
		req = self.req
		build_wt = prepare_worktree(
			req.tree, lab_paths.check_worktree(req.cache, req.base_name),
			req.base)
		commits = self.patch_commits(wt)
		for n, c in enumerate(commits, 1):
			subject = wt.text(['log', '-1', '--format=%s', c])
			build_wt.run(['checkout', '-q', '-f', '--detach', c])
			touched = tuple(f for f in wt.text(['diff', '--name-only',
							   f'{c}~1', c]).split()
					if f.endswith('.c'))
			for label, fragments in self.configs():
				self.progress(f'series: building {n}/{len(commits)} '
					      f'"{subject}" ({label} config)')
				yield self.run_build(build_wt, BuildRun(
					n, c, subject, label, touched, ()), fragments)

	def patch_commits(self, wt: Git) -> List[str]:
		"""The b4 branch's commits but b4's cover letter, an empty
		commit: not a patch, not built."""
		commits = wt.text(['rev-list', '--reverse', '--no-merges',
				   f'{self.req.base}..HEAD']).split()
		return [c for c in commits if
			wt.text(['diff', '--name-only', f'{c}~1', c])]

	def configs(self) -> List[Tuple[str, Tuple[Path, ...]]]:
		"""(label, config fragments) of the configurations asked for."""
		return [c for c in (('guest', (lab_guest.FRAGMENT,)),
				    ('kunit', (lab_guest.FRAGMENT,) +
				     tuple(lab_kunit.kunitconfigs())))
			if c[0] in self.req.configs]

	def build_dir(self, tree: Path, label: str,
		      fragments: Tuple[Path, ...]) -> Path:
		if fragments == (lab_guest.FRAGMENT,):
			# Where make test's lab check and the gauntlet build the
			# guest config: incremental from the topic branch.
			return lab_guest.build_dir_for(lab_guest.GuestRequest(
				tree, self.req.cache, lab_paths.CHECK_VARIANT,
				self.req.jobs))
		return lab_paths.build_dir(
			self.req.cache, f'series-{label}-{self.req.base_name}')

	def run_build(self, wt: Git, b: BuildRun,
		      fragments: Tuple[Path, ...]) -> BuildRun:
		"""Builds b.commit (checked out in wt) with the fragments, then
		W=1 on the objects of the touched files at its parent and at
		it; b comes back with the runs filled in."""
		tree = wt.worktree
		build = self.build_dir(tree, b.label, fragments)
		build.mkdir(parents=True, exist_ok=True)
		merged = build / 'hiblab-fragment.config'
		merged.write_text(''.join(Path(f).read_text() for f in fragments))
		make = ['make', '-C', str(tree), f'O={build}', f'-j{self.req.jobs}']
		log = self.req.results / f'build-{b.label}.log'
		steps: List[Run] = []
		# allnoconfig again on every commit: symbols a later commit adds
		# are simply absent before it (KCONFIG_ALLCONFIG ignores them).
		for argv in (make + [f'KCONFIG_ALLCONFIG={merged}', 'allnoconfig'],
			     make + ['vmlinux']):
			steps.append(run_logged(argv, tree, log))
			if steps[-1].rc != 0:
				break
		b = dataclasses.replace(b, make=tuple(steps))
		objs = objects_built_from(build, list(b.touched)) \
			if steps[-1].rc == 0 else []
		if not objs:
			return b
		wt.run(['checkout', '-q', '-f', '--detach', f'{b.commit}~1'])
		parent = self.w1(make, build, objs, log)
		wt.run(['checkout', '-q', '-f', '--detach', b.commit])
		return dataclasses.replace(b, w1_parent=parent,
					   w1_commit=self.w1(make, build, objs, log))

	@staticmethod
	def w1(make: List[str], build: Path, objs: List[str], log: Path) -> Run:
		"""make W=1 of objs, removed first so that they recompile."""
		for o in objs:
			(build / o).unlink(missing_ok=True)
		return run_logged(w1_command(make, objs), Path(make[2]), log)


def read_series_mutants(repo: Path, base: str) -> List[SeriesMutant]:
	"""mutants/<base>/series/*.patch"""
	return [parse_series_mutant(p) for p in sorted(
		(lab_paths.mutant_dir(repo, base) / 'series').glob('*.patch'))]


def run_series_mutants(req: SeriesRequest, mutants: List[SeriesMutant],
		       progress: Callable[[str], None] = print
		       ) -> List[Verdict]:
	"""Each series mutant must stop the run at its Stops-at check."""
	verdicts = []
	for m in mutants:
		progress(f'series: mutant {m.name} (must stop at {m.stops_at})')
		got = Series(dataclasses.replace(
			req, results=req.results / f'mutant-{m.name}', mutant=m),
			progress).run()
		verdicts.append(judge_mutant(m, got))
	return verdicts
