# SPDX-License-Identifier: GPL-2.0
"""A base's series as mails: for each series (catalog), on its own stack
(stack: the pristine base, its prerequisites, the series, by git am), b4
prep, checkpatch, per-commit builds, its KUnit suites on that stack
(suites), b4 send -o, and a git am round trip.

b4 works on a branch of its own per series (b4/<series>) in a worktree of
the kernel tree (worktrees/series-<series>-<base>; mails not for sending in
the shared worktrees/series-scratch-<base>), reset on every run, so b4's
cover-letter commit never lands on the developer's topic.  The tools
never send mail: b4 runs with sendemail.smtpserver=/bin/false and `b4 send
-o DIR`, which only writes the messages.

The mails are the sender's (git's user.name/user.email; judge_sender
refuses a placeholder): the b4 branch is the stack rewritten with the
sender as author of our own patches (a backport, whose message starts
'commit <sha> upstream.', keeps its author), as committer, and with the
sender's Signed-off-by after each patch's trailers.  make test rehearses
with REHEARSAL_SENDER, its mails marked as not for sending; a series with
Hold: has its mails marked and kept apart too.

Stages stop a series at the first failure, with one line saying why:
applies, cover letter, recipients, checkpatch, KUnit on the series' stack,
per-commit builds, mails, round trip.  Every verdict of a series is named
series/<series>/<stage>...

Running is apart from judging: Series runs the processes and returns what
they did as records (Run, CheckpatchRun, BuildRun, Mail, RoundTrip); the
judge_* functions turn records into verdicts without running anything, so
the tests beside each module feed them the captured output of real runs.
"""

import dataclasses
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Set

from hiblab import paths
from hiblab.base import pins
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.series.b4 import B4Prep, based_on, check_cover, cover_template
from hiblab.series.builds import CommitBuilds, judge_build
from hiblab.series.catalog import SeriesDef, pick
from hiblab.series.checkpatch import (judge_checkpatch, justified_findings,
				      run_checkpatch)
from hiblab.series.identity import (REHEARSAL_DIR, REHEARSAL_PREFIX,
				    REHEARSAL_SENDER, judge_sender, sign_branch)
from hiblab.series.mails import expected_recipients, judge_mails, read_mail
from hiblab.series.mutants import SeriesMutant, insert_mutant, judge_mutant
from hiblab.series.request import SeriesRequest
from hiblab.series.roundtrip import RoundTrip, judge_round_trip, run_am
from hiblab.series.runs import passed
from hiblab.series.stack import build_stack
from hiblab.series.suites import run_suites, suites_of
from hiblab.verdict import FAIL, PASS, Verdict

# The subject prefix and directory of the mails of a series with Hold:.
HOLD_PREFIX = 'HELD-NOT-FOR-SENDING'
HOLD_DIR = 'held-not-for-sending'


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
		self.defn = req.series
		assert self.defn is not None and req.stack is not None
		# A mutant and make test's rehearsal get a branch of their own
		# in the shared scratch worktree: the real series stays ready
		# to send from worktrees/series-<series>-<base>.
		suffix = '-mutant' if req.mutant else \
			'-rehearsal' if req.rehearsal else ''
		self.wt_path = paths.worktree(
			req.cache, req.base_name, paths.SERIES_SCRATCH if suffix
			else f'series-{self.defn.name}')
		self.branch = f'b4/{self.defn.name}{suffix}'
		# Mails not to send: under directories that say so.
		self.out = req.results / REHEARSAL_DIR if req.rehearsal \
			else req.results
		if self.defn.hold:
			self.out = self.out / HOLD_DIR
		# The mutant's inserted commit as the series numbers it.
		self.mutant = req.mutant and dataclasses.replace(
			req.mutant, after=self.defn.steps.index(req.mutant.after) + 1
			if req.mutant.after else 0)

	def log(self, name: str) -> Path:
		return self.req.results / name

	def b4(self) -> B4Prep:
		stack = self.req.stack
		template = self.log('cover-template.txt')
		template.write_text(cover_template(
			stack.pristine, stack.prerequisite_ids,
			based_on(pins.read_pin(paths.base_pin_file(self.req.repo),
					       self.req.base_name),
				 stack.prerequisites)))
		return B4Prep(self.wt_path, self.log('b4.log'), self.sender,
			      template)

	def run(self) -> List[Verdict]:
		req = self.req
		req.results.mkdir(parents=True, exist_ok=True)
		try:
			cover = req.results / 'cover-letter.txt'
			cover.write_text(check_cover(self.defn.cover, self.defn.path))
			want = expected_recipients(req.repo, req.base_name,
						   self.defn.name)
			wt = self._branch()
			b4 = self.b4()
			self.progress(f'series: {self.defn.name}: b4 prep in '
				      f'{self.wt_path} (branch {self.branch})')
			b4.enroll(req.base, cover, self.prefixes(),
				  self.defn.version)
			patches = b4.format_patches(self.out / 'patches')
			# Cheapest first: the series' own stack as one kernel
			# (its KUnit suites), then every commit on its own.
			stacks = self.stacks_run()
			if self._checkpatch(patches) and \
			   (not stacks or self._suites(wt)) and \
			   (not stacks or not req.builds or self._build_each(wt)):
				mails = b4.send(self.out / 'mails')
				if self._recipients(mails, want):
					self._round_trip(mails)
		except LabError as e:
			self.verdicts.append(Verdict('series', FAIL, str(e)))
		return named(self.defn.name, self.verdicts)

	def stacks_run(self) -> bool:
		"""Whether the series' KUnit suites on its own stack and its
		per-commit builds run (see SeriesRequest.held_stacks)."""
		if self.req.held_stacks or not self.defn.hold:
			return True
		self.progress(f'series: {self.defn.name}: held: its KUnit suites '
			      'on its own stack and its per-commit builds left '
			      'out (make test-all runs them)')
		return False

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
		if self.mutant and self.mutant.after:
			commits = req.tree.text(['rev-list', '--reverse',
						 f'{req.base}..{req.topic}'])
			insert_mutant(wt, commits.split(), self.mutant, self.sender)
		sign_branch(wt, req.base, self.sender)
		return wt

	def prefixes(self) -> List[str]:
		"""b4's subject prefixes besides PATCH: RFC, and the marks of
		mails not to send."""
		return self.defn.prefix.split()[:-1] + \
			([HOLD_PREFIX] if self.defn.hold else []) + \
			([REHEARSAL_PREFIX] if self.req.rehearsal else [])

	def _checkpatch(self, patches: List[Path]) -> bool:
		justified = justified_findings(self.defn.justifications())
		return self._judged(judge_checkpatch(
			run_checkpatch(self.wt_path, patches,
				       self.log('checkpatch.log')),
			justified, self.mutant))

	def _suites(self, wt: Git) -> bool:
		"""The KUnit suites of the series and its prerequisites pass on
		its own stack (the b4 branch, nothing else of the topic)."""
		req = self.req
		head = wt.text(['rev-parse', 'HEAD'])
		wanted = suites_of(req.tree, req.stack.pristine, head)
		if not wanted:
			return True
		got = run_suites(req.tree, req.cache, req.base_name, head, wanted,
				 self.log('kunit'), req.jobs, self.progress)
		if got is None:
			# The stack does not build: the per-commit builds next
			# name the commit that breaks it.  Without them, this
			# is the series' failure.
			if req.builds:
				return True
			self.verdicts.append(Verdict('series', FAIL, 'stopped: '
						     'its stack does not build '
						     '(make series names the '
						     'commit)'))
			return False
		if self._judged(got):
			return True
		self.verdicts.append(Verdict('series', FAIL, 'stopped: a KUnit '
					     'suite fails on the series\' own '
					     'stack (a prerequisite it does not '
					     'declare?)'))
		return False

	def _build_each(self, wt: Git) -> bool:
		"""Every commit of the b4 branch builds on its own: the builds
		stop at the first one judged a failure."""
		for b in CommitBuilds(self.req, self.progress).each(wt):
			if not self._judged(judge_build(b)):
				return False
		return True

	def _recipients(self, mails: List[Path], want: Set[str]) -> bool:
		return self._judged(judge_mails([read_mail(m) for m in mails],
						want, self.sender[1]))

	def _round_trip(self, mails: List[Path]) -> None:
		self.verdicts.append(judge_round_trip(self.run_am(mails)))

	def run_am(self, mails: List[Path]) -> RoundTrip:
		"""The round trip; the tree to compare with is the b4 branch's
		under a series mutant, else the topic's."""
		req = self.req
		what, want = ('b4 branch', Git(self.wt_path).tree_of('HEAD')) \
			if req.mutant else ('stack', req.tree.tree_of(req.topic))
		return run_am(req.tree, paths.worktree(req.cache, req.base_name,
						      paths.SERIES_AM),
			      req.base, mails, self.sender, what, want)


def named(series: str, verdicts: Sequence[Verdict]) -> List[Verdict]:
	"""The stages' verdicts (series, series/<stage>...) named for the
	series: series/<series>, series/<series>/<stage>..."""
	return [dataclasses.replace(v, name=f'series/{series}' +
				    v.name[len('series'):])
		for v in verdicts]


def stack_request(req: SeriesRequest, s: SeriesDef,
		  catalog: Sequence[SeriesDef],
		  requires: Optional[Sequence[str]] = None
		  ) -> SeriesRequest:
	"""req for series s: its stack built (prerequisites declared by s,
	or `requires`), its results under results/<series>/."""
	st = build_stack(req.tree, req.cache, req.base_name, req.base, req.topic,
			 s, catalog, requires)
	return dataclasses.replace(req, base=st.fork, topic=st.tip, series=s,
				   stack=st, results=req.results / s.name)


def run_series(req: SeriesRequest, s: SeriesDef,
	       catalog: Sequence[SeriesDef],
	       progress: Callable[[str], None] = print) -> List[Verdict]:
	"""One series on its own stack; a series that does not apply there
	stops at series/<series>/applies."""
	requires = req.mutant.requires if req.mutant else None
	progress('series: ' + (s if requires is None else dataclasses.replace(
		s, requires=requires)).line())
	try:
		sreq = stack_request(req, s, catalog, requires)
	except LabError as e:
		return [Verdict(f'series/{s.name}/applies', FAIL, str(e)),
			Verdict(f'series/{s.name}', FAIL, 'stopped: it does not '
				'apply on the base and its prerequisites')]
	applied = Verdict(f'series/{s.name}/applies', PASS, f'{len(s.steps)} '
			  f'patch(es) on {sreq.stack.pristine[:12]} + ' +
			  (' + '.join(sreq.stack.prerequisites) or 'nothing'))
	return [applied] + Series(sreq, progress).run()


def run_base(req: SeriesRequest, catalog: Sequence[SeriesDef],
	     only: str = '', progress: Callable[[str], None] = print
	     ) -> List[Verdict]:
	"""Every series of the base (or the one named `only`), each on its
	own stack."""
	picked = [pick(catalog, only)] if only else list(catalog)
	verdicts: List[Verdict] = []
	for s in picked:
		verdicts += run_series(req, s, catalog, progress)
	return verdicts


def mutant_series(m: SeriesMutant, catalog: Sequence[SeriesDef]
		  ) -> SeriesDef:
	"""The series a mutant changes."""
	if m.series:
		return pick(catalog, m.series)
	for s in catalog:
		if m.after in s.steps:
			return s
	raise LabError(f'series mutant {m.name}: no series holds step '
		       f'{m.after:04d}', 'fix its Inserts-after:')


def run_series_mutants(req: SeriesRequest, catalog: Sequence[SeriesDef],
		       mutants: List[SeriesMutant],
		       progress: Callable[[str], None] = print
		       ) -> List[Verdict]:
	"""Each series mutant must stop its series at its Stops-at check."""
	verdicts = []
	for m in mutants:
		if not req.builds and '/build/' in m.stops_at:
			# Left out with the builds (the caller says so).
			progress(f'series: mutant {m.name} left out: it stops '
				 f'at {m.stops_at}, and the per-commit builds '
				 'are off')
			continue
		progress(f'series: mutant {m.name} (must stop at {m.stops_at})')
		s = mutant_series(m, catalog)
		got = run_series(dataclasses.replace(
			req, results=req.results / f'mutant-{m.name}', mutant=m),
			s, catalog, progress)
		verdicts.append(judge_mutant(m, got, f'series/{s.name}'))
	return verdicts
