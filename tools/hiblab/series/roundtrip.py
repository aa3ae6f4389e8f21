# SPDX-License-Identifier: GPL-2.0
"""`git am` of the written mails onto the pristine base: the mails must give
back the tree they were made from."""

import dataclasses
import os
from pathlib import Path
from typing import Sequence

from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.series.identity import Identity
from hiblab.verdict import FAIL, PASS, Verdict

@dataclasses.dataclass(frozen=True)
class RoundTrip:
	"""`git am` of the mails onto the base: the tree it made (or its
	error) and the tree it must equal."""
	base: str		# the commit the mails were applied to
	what: str		# whose tree `want` is: 'topic' or 'b4 branch'
	want: str
	got: str = ''
	am_error: str = ''	# git am's failure; '' when the mails applied


def judge_round_trip(rt: RoundTrip) -> Verdict:
	"""git am of the mails must give the tree the mails were made from;
	mails that do not apply stop the run."""
	if rt.am_error:
		raise LabError(f'git am of the written mails failed ({rt.am_error})')
	same = rt.got == rt.want
	return Verdict('series/round-trip', PASS if same else FAIL,
		       f'git am onto {rt.base[:12]}: tree {rt.got[:12]} '
		       f'{"==" if same else "!="} {rt.what} tree {rt.want[:12]}')


def run_am(tree: Git, am_path: Path, base: str, mails: Sequence[Path],
	   sender: Identity, what: str, want: str) -> RoundTrip:
	"""git am of the patch mails onto the pristine base, in a worktree
	of its own (am_path); want is the tree they must give (what: whose)."""
	am = prepare_worktree(tree, am_path, base)
	env = dict(os.environ, GIT_COMMITTER_NAME=sender[0],
		   GIT_COMMITTER_EMAIL=sender[1])
	rt = RoundTrip(base, what, want)
	try:
		am.run(['am', '-q'] + [str(m) for m in mails
				       if not m.name.startswith('0000-')],
		       env=env)
	except LabError as e:
		am.run(['am', '--abort'], check=False)
		return dataclasses.replace(rt, am_error=str(e))
	return dataclasses.replace(rt, got=am.tree_of('HEAD'))
