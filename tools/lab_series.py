# SPDX-License-Identifier: GPL-2.0
"""The topic branch as a mail series: b4 prep, checkpatch, per-commit
builds, b4 send -o, and a git am round trip.

b4 works on a branch of its own (b4/hibernate-lab) in a worktree of the
kernel tree, reset to the topic branch on every run, so b4's cover-letter
commit never lands on the developer's topic.  The tools never send mail:
b4 runs with sendemail.smtpserver=/bin/false and `b4 send -o DIR`, which
only writes the messages.

Stages stop the run at the first failure, with one line saying why:
cover letter, recipients, checkpatch, per-commit builds, mails, round trip.
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
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import lab_guest
import lab_kunit
import lab_paths
from lab_errors import LabError
from lab_git import Git, prepare_worktree
from lab_verdict import FAIL, PASS, Verdict

SERIES_BRANCH = 'b4/hibernate-lab'
COVER_LETTER = 'cover-letter.txt'
NOTES_FILE = 'MAINTAINERS-notes'
# MAINTAINERS-notes carries the recipients b4 must produce between these.
# One block per base: its series goes to the recipients of that tree.


def recipients_begin(base: str) -> str:
	return f'--- recipients of the {base} series (checked by make series) ---'


RECIPIENTS_END = '--- end of recipients ---'
_TOTAL = re.compile(r'^total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?'
		    r'(\d+) lines checked', re.M)
_CP_FIRST_LINE = re.compile(r'^(?:ERROR|WARNING|CHECK):.*$', re.M)


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
	text = (repo / NOTES_FILE).read_text()
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


def mail_recipients(path: Path) -> Tuple[List[str], List[str]]:
	msg = email.message_from_bytes(path.read_bytes(),
				       policy=email.policy.default)
	def addrs(field: str) -> List[str]:
		return [a for _, a in email.utils.getaddresses(
			msg.get_all(field, []))]
	return addrs('To'), addrs('Cc')


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


class Series:
	"""One `make series` run; run() returns the verdicts."""

	def __init__(self, req: SeriesRequest,
		     progress: Callable[[str], None] = print) -> None:
		self.req = req
		self.progress = progress
		self.verdicts: List[Verdict] = []
		self.author = self._author()
		# A mutant gets a worktree and branch of its own: the real
		# series stays ready to send from worktrees/series-<base>.
		suffix = '-mutant' if req.mutant else ''
		self.wt_path = lab_paths.worktree(req.cache, req.base_name,
						  f'series{suffix}')
		self.branch = SERIES_BRANCH + suffix

	def _author(self) -> Tuple[str, str]:
		name, addr = email.utils.parseaddr(self.req.tree.text(
			['log', '-1', '--format=%an <%ae>', self.req.topic]))
		return name, addr

	def b4_env(self, cover: Optional[Path] = None) -> Dict[str, str]:
		config = [('user.name', self.author[0]),
			  ('user.email', self.author[1]),
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

	def run_logged(self, argv: Sequence[str], cwd: Path, log: str,
		       env: Optional[Dict[str, str]] = None) -> Tuple[int, str]:
		proc = subprocess.run(list(argv), cwd=cwd, env=env,
				      stdin=subprocess.DEVNULL,
				      stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, check=False,
				      timeout=1800)
		out = proc.stdout.decode(errors='replace')
		with (self.req.results / log).open('a') as f:
			f.write(f'$ {" ".join(argv)}\n{out}')
		return proc.returncode, out

	def b4(self, args: Sequence[str], what: str,
	       cover: Optional[Path] = None) -> str:
		rc, out = self.run_logged(['b4'] + list(args), self.wt_path,
					  'b4.log', self.b4_env(cover))
		if rc != 0:
			crit = [l for l in out.splitlines() if 'CRITICAL' in l]
			raise LabError(f'b4 {what} failed: ' +
				       (crit[0] if crit else out.strip()
					.splitlines()[-1] if out.strip() else
					f'exit {rc}'),
				       f'see {self.req.results / "b4.log"}')
		return out

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

	def _branch(self) -> Git:
		"""The b4 branch: topic, plus the series mutant if there is one."""
		req = self.req
		wt = prepare_worktree(req.tree, self.wt_path, req.topic)
		wt.run(['config', '--remove-section', f'branch.{self.branch}'],
		       check=False)
		wt.run(['checkout', '-q', '-B', self.branch, req.topic])
		if req.mutant:
			self._insert_mutant(wt, req.mutant)
		return wt

	def _insert_mutant(self, wt: Git, m: SeriesMutant) -> None:
		commits = self.req.tree.text(['rev-list', '--reverse',
					      f'{self.req.base}..{self.req.topic}'
					      ]).split()
		if not 1 <= m.after <= len(commits):
			raise LabError(f'{m.path.name}: no step {m.after:04d} in a '
				       f'series of {len(commits)}')
		env = dict(os.environ, GIT_AUTHOR_NAME=self.author[0],
			   GIT_AUTHOR_EMAIL=self.author[1],
			   GIT_COMMITTER_NAME=self.author[0],
			   GIT_COMMITTER_EMAIL=self.author[1])
		wt.run(['reset', '-q', '--hard', commits[m.after - 1]])
		try:
			wt.run(['apply', '--index', str(m.path)])
		except LabError as e:
			raise LabError(f'series mutant {m.name} does not apply after '
				       f'step {m.after:04d} ({e})') from e
		why = textwrap.fill(re.search(r'^Why: *(.*)$', m.path.read_text(),
					      re.M)[1], 72)
		wt.run(['commit', '-q', '-m', f'x86/power: Series mutant {m.name}'
			f'\n\n{why}\n\nSigned-off-by: {self.author[0]} '
			f'<{self.author[1]}>'], env=env)
		for c in commits[m.after:]:
			wt.run(['cherry-pick', '--allow-empty', c], env=env)

	def _enroll(self, cover: Path) -> None:
		self.progress(f'series: b4 prep in {self.wt_path} '
			      f'(branch {self.branch})')
		self.b4(['prep', '-e', self.req.base], 'prep --enroll')
		self.b4(['prep', '--edit-cover'], 'prep --edit-cover', cover)
		out = self.b4(['prep', '--auto-to-cc'], 'prep --auto-to-cc')
		if 'get_maintainer.pl' not in out:
			raise LabError('b4 prep --auto-to-cc did not run '
				       'scripts/get_maintainer.pl (it must be '
				       'executable in the tree)',
				       'chmod +x scripts/get_maintainer.pl')

	def _format_patches(self) -> List[Path]:
		out = self.req.results / 'patches'
		shutil.rmtree(out, ignore_errors=True)
		self.b4(['prep', '-p', str(out)], 'prep --format-patch')
		patches = sorted(p for p in out.glob('*.patch')
				 if not p.name.startswith('0000-'))
		self.progress(f'series: {len(patches)} patches in {out}')
		return patches

	def _checkpatch(self, patches: List[Path]) -> bool:
		ok = True
		script = self.wt_path / 'scripts' / 'checkpatch.pl'
		justified = justified_findings(read_cover(self.req.repo,
							  self.req.base_name))
		for p in patches:
			_, out = self.run_logged([str(script), '--strict',
						  '--show-types', str(p)],
						 self.wt_path, 'checkpatch.log')
			n = int(p.name[:4])
			m = self.req.mutant
			if m and n > m.after:
				# The cover letter numbers the real series.
				n = 0 if n == m.after + 1 else n - 1
			v = checkpatch_verdict(f'series/checkpatch/{p.name[:4]}', out,
					       justified.get(n, set()))
			self.verdicts.append(v)
			ok = ok and v.status == PASS
		if not ok:
			self.verdicts.append(Verdict('series', FAIL, 'stopped: a patch '
						     'has checkpatch findings (see '
						     f'{self.req.results / "checkpatch.log"})'))
		return ok

	def _build_each(self, wt: Git) -> bool:
		"""Every commit of the b4 branch builds on its own."""
		req = self.req
		build_wt = prepare_worktree(
			req.tree, lab_paths.check_worktree(req.cache, req.base_name),
			req.base)
		commits = wt.text(['rev-list', '--reverse', '--no-merges',
				   f'{req.base}..HEAD']).split()
		configs = [c for c in (('guest', (lab_guest.FRAGMENT,)),
				       ('kunit', (lab_guest.FRAGMENT,) +
					tuple(lab_kunit.kunitconfigs())))
			   if c[0] in req.configs]
		# b4's cover letter is an empty commit: not a patch, not built.
		commits = [c for c in commits if
			   wt.text(['diff', '--name-only', f'{c}~1', c])]
		for n, c in enumerate(commits, 1):
			subject = wt.text(['log', '-1', '--format=%s', c])
			build_wt.run(['checkout', '-q', '-f', '--detach', c])
			touched = [f for f in wt.text(['diff', '--name-only',
						       f'{c}~1', c]).split()
				   if f.endswith('.c')]
			for label, fragments in configs:
				self.progress(f'series: building {n}/{len(commits)} '
					      f'"{subject}" ({label} config)')
				err = self._build(build_wt, c, label, fragments,
						  touched)
				name = f'series/build/{n:04d}-{label}'
				if err:
					self.verdicts.append(Verdict(name, FAIL,
								     f'"{subject}": {err}'))
					self.verdicts.append(Verdict(
						'series', FAIL, f'stopped: commit {n} '
						f'({c[:12]}) does not build on its own'))
					return False
				self.verdicts.append(Verdict(
					name, PASS, f'"{subject}" builds; no new W=1 '
					f'warning in {", ".join(touched) or "no .c file"}'))
		return True

	def _build(self, wt: Git, commit: str, label: str, fragments: tuple,
		   touched: List[str]) -> str:
		"""'' when the commit builds and adds no W=1 warning in the
		files it touches (warnings the parent has already do not count:
		hibernate.c carries a kernel-doc one from upstream)."""
		tree = wt.worktree
		if fragments == (lab_guest.FRAGMENT,):
			# Where make test's lab check and the gauntlet build the
			# guest config: incremental from the topic branch.
			build = lab_guest.build_dir_for(lab_guest.GuestRequest(
				tree, self.req.cache, lab_paths.CHECK_VARIANT,
				self.req.jobs))
		else:
			build = lab_paths.build_dir(
				self.req.cache, f'series-{label}-{self.req.base_name}')
		build.mkdir(parents=True, exist_ok=True)
		merged = build / 'hiblab-fragment.config'
		merged.write_text(''.join(Path(f).read_text() for f in fragments))
		make = ['make', '-C', str(tree), f'O={build}', f'-j{self.req.jobs}']
		log = f'build-{label}.log'
		# allnoconfig again on every commit: symbols a later commit adds
		# are simply absent before it (KCONFIG_ALLCONFIG ignores them).
		for argv in (make + [f'KCONFIG_ALLCONFIG={merged}', 'allnoconfig'],
			     make + ['vmlinux']):
			rc, out = self.run_logged(argv, tree, log)
			if rc != 0:
				errs = [l for l in out.splitlines() if 'error' in l]
				return (errs or out.strip().splitlines() or
					['make failed'])[0].strip()
		objs = objects_built_from(build, touched)
		if not objs:
			return ''
		wt.run(['checkout', '-q', '-f', '--detach', f'{commit}~1'])
		before, rc_before = self._w1(make, build, objs, touched, log)
		wt.run(['checkout', '-q', '-f', '--detach', commit])
		after, rc = self._w1(make, build, objs, touched, log)
		new = [w for w in after if w_key(w) not in {w_key(b) for b in before}]
		# W=1 can fail on warnings the parent has too (kernel-doc with
		# -Werror): only a failure the commit introduces counts.
		if new or (rc != 0 and rc_before == 0):
			return 'W=1: ' + (new or ['make W=1 failed'])[0].strip()
		return ''

	def _w1(self, make: List[str], build: Path, objs: List[str],
		touched: List[str], log: str) -> Tuple[List[str], int]:
		"""W=1 warnings naming a touched file, recompiling objs."""
		for o in objs:
			(build / o).unlink(missing_ok=True)
		rc, out = self.run_logged(w1_command(make, objs), Path(make[2]),
					  log)
		return [l for l in out.splitlines() if ('warning:' in l or
			'error:' in l) and any(f in l for f in touched)], rc

	def _send(self) -> List[Path]:
		out = self.req.results / 'mails'
		shutil.rmtree(out, ignore_errors=True)
		self.b4(['send', '-o', str(out), '--no-sign'], 'send -o')
		mails = sorted(out.glob('*.eml'))
		if not mails:
			raise LabError(f'b4 send -o wrote no mails into {out}')
		return mails

	def _recipients(self, mails: List[Path], want: Set[str]) -> bool:
		me = self.author[1].lower()
		ok = True
		for m in mails:
			to, cc = mail_recipients(m)
			got = {a.lower() for a in to + cc} - {me}
			missing, extra = sorted(want - got), sorted(got - want)
			detail = f'To: {", ".join(to)}; Cc: {", ".join(cc)}'
			if not to:
				self.verdicts.append(Verdict(f'series/mail/{m.name[:4]}',
							     FAIL, 'no To: (b4 send '
							     'refuses a series '
							     'without recipients)'))
				ok = False
			elif missing or extra:
				self.verdicts.append(Verdict(
					f'series/mail/{m.name[:4]}', FAIL,
					f'recipients differ from {NOTES_FILE}: missing '
					f'{", ".join(missing) or "none"}, extra '
					f'{", ".join(extra) or "none"}'))
				ok = False
			else:
				self.verdicts.append(Verdict(f'series/mail/{m.name[:4]}',
							     PASS, f'{m.name}: {detail}'))
		return ok

	def _round_trip(self, mails: List[Path]) -> None:
		req = self.req
		am = prepare_worktree(req.tree, lab_paths.worktree(
			req.cache, req.base_name, 'series-am'), req.base)
		env = dict(os.environ, GIT_COMMITTER_NAME=self.author[0],
			   GIT_COMMITTER_EMAIL=self.author[1])
		try:
			am.run(['am', '-q'] + [str(m) for m in mails
					       if not m.name.startswith('0000-')],
			       env=env)
		except LabError as e:
			am.run(['am', '--abort'], check=False)
			raise LabError(f'git am of the written mails failed ({e})') \
				from e
		got = am.tree_of('HEAD')
		# With a series mutant the b4 branch is not the topic any more.
		what, want = ('b4 branch', Git(self.wt_path).tree_of('HEAD')) \
			if req.mutant else ('topic', req.tree.tree_of(req.topic))
		self.verdicts.append(Verdict(
			'series/round-trip', PASS if got == want else FAIL,
			f'git am onto {req.base[:12]}: tree {got[:12]} '
			f'{"==" if got == want else "!="} {what} tree {want[:12]}'))


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
		failed = [v for v in got if v.status == FAIL]
		hit = next((v for v in failed if v.name == m.stops_at), None)
		stopped = any(v.name == 'series' and 'stopped' in v.detail
			      for v in failed)
		name = f'series-mutant/{m.name}'
		if hit and stopped:
			verdicts.append(Verdict(name, PASS, f'stopped at {hit.name}: '
						f'{hit.detail}'))
		else:
			verdicts.append(Verdict(name, FAIL, f'expected a stop at '
						f'{m.stops_at}; failed: ' +
						(', '.join(v.name for v in failed)
						 or 'nothing')))
	return verdicts
