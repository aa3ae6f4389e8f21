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
the tests beside each module feed them the captured output of real runs.
"""

import dataclasses
import shutil
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Set

from hiblab import paths
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.series.b4 import b4_env, judge_auto_to_cc, judge_b4, read_cover
from hiblab.series.builds import CommitBuilds, judge_build
from hiblab.series.checkpatch import (judge_checkpatch, justified_findings,
				      run_checkpatch)
from hiblab.series.identity import (REHEARSAL_DIR, REHEARSAL_PREFIX,
				    REHEARSAL_SENDER, judge_sender, sign_branch)
from hiblab.series.mails import expected_recipients, judge_mails, read_mail
from hiblab.series.mutants import SeriesMutant, insert_mutant, judge_mutant
from hiblab.series.request import SeriesRequest
from hiblab.series.roundtrip import RoundTrip, judge_round_trip, run_am
from hiblab.series.runs import passed, run_logged
from hiblab.verdict import FAIL, Verdict

SERIES_BRANCH = 'b4/hibernate-lab'


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
		self.wt_path = paths.worktree(req.cache, req.base_name,
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
			commits = req.tree.text(['rev-list', '--reverse',
						 f'{req.base}..{req.topic}'])
			insert_mutant(wt, commits.split(), req.mutant, self.sender)
		sign_branch(wt, req.base, self.sender)
		return wt

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
			run_checkpatch(self.wt_path, patches,
				       self.log('checkpatch.log')),
			justified, self.req.mutant))

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
		"""The round trip; the tree to compare with is the b4 branch's
		under a series mutant, else the topic's."""
		req = self.req
		what, want = ('b4 branch', Git(self.wt_path).tree_of('HEAD')) \
			if req.mutant else ('topic', req.tree.tree_of(req.topic))
		return run_am(req.tree, paths.worktree(req.cache, req.base_name,
						      'series-am'),
			      req.base, mails, self.sender, what, want)


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
