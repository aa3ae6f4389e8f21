# SPDX-License-Identifier: GPL-2.0
"""b4 as the series uses it: its environment (the sender's identity, a mail
server that cannot send), its failures as one line, the cover letter it is
given and the template it writes the letter's tail with."""

import os
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from hiblab.base.pins import BasePin
from hiblab.errors import LabError
from hiblab.series.identity import Identity
from hiblab.series.runs import Run, judge_finished, run_logged


def check_cover(text: str, where: Path) -> str:
	"""The cover letter, unless it is a draft b4 send would refuse."""
	if 'EDITME' in text:
		raise LabError(f'{where} still says EDITME (b4 send refuses it)',
			       'finish the cover letter first')
	return text


def cover_template(base_commit: str, prerequisite_ids: Sequence[str],
		   based_on: str = '') -> str:
	"""b4's cover letter template (b4.prep-cover-template), with the
	tail `git format-patch --base` writes: the base-commit the series
	applies to, and the patch-id of each prerequisite patch applied on it
	first (prerequisite-patch-id:, in order), so that the mails say what
	they stand on.  b4 0.12 has no notion of prerequisites (it writes the
	fork point as the base); its ${...} fields fill in the rest.
	based_on: a line saying what the base is, in words."""
	prereq = ''.join(f'prerequisite-patch-id: {i}\n'
			 for i in prerequisite_ids)
	words = f'{based_on}\n' if based_on else ''
	return ('${cover}\n\n---\n${shortlog}\n\n${diffstat}\n---\n'
		f'{words}base-commit: {base_commit}\n{prereq}'
		'change-id: ${change_id}\n\nBest regards,\n-- \n'
		'${signature}\n')


def based_on(pin: BasePin, prerequisites: Sequence[str]) -> str:
	"""The cover letter's words on its base, in terms a maintainer can
	resolve: the upstream version and the package it came from, since
	base-commit: is the import of that package, not an upstream id."""
	line = (f'Based on v{pin.kernel_version} as Debian\'s {pin.package} '
		f'{pin.package_version} ships it (base-commit: is that source '
		'imported as one commit, not an upstream id)')
	if prerequisites:
		line += '; first the prerequisite patches of the series named ' \
			'above (prerequisite-patch-id:)'
	return line + '.'


def b4_env(author: Identity, cover: Optional[Path] = None,
	   template: Optional[Path] = None) -> Dict[str, str]:
	"""b4's environment: the sender (author) as git's identity, a
	cover letter commit (and its template), and a mail server that
	cannot send."""
	config = [('user.name', author[0]),
		  ('user.email', author[1]),
		  # Never mail anything: -o only writes files, and a
		  # real send would run /bin/false.
		  ('sendemail.smtpserver', '/bin/false'),
		  ('b4.prep-cover-strategy', 'commit')]
	if cover:
		# b4 prep --edit-cover runs the editor on its temp file.
		config.append(('core.editor', f'cp {cover}'))
	if template:
		config.append(('b4.prep-cover-template', str(template)))
	env = dict(os.environ, GIT_CONFIG_COUNT=str(len(config)))
	for i, (k, v) in enumerate(config):
		env[f'GIT_CONFIG_KEY_{i}'] = k
		env[f'GIT_CONFIG_VALUE_{i}'] = v
	return env


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


class B4Prep:
	"""b4 in one series' worktree (wt_path), as the sender, its output
	appended to log: the calls make series makes, each judged."""

	def __init__(self, wt_path: Path, log: Path, sender: Identity,
		     template: Path) -> None:
		self.wt_path = wt_path
		self.log = log
		self.sender = sender
		self.template = template

	def run(self, args: Sequence[str], what: str,
		cover: Optional[Path] = None) -> str:
		return judge_b4(run_logged(['b4'] + list(args), self.wt_path,
					   self.log, b4_env(self.sender, cover,
							    self.template)),
				what)

	def enroll(self, fork: str, cover: Path, prefixes: Sequence[str],
		   version: int) -> None:
		"""The branch enrolled on fork, its cover letter, prefixes and
		revision, and get_maintainer.pl's recipients."""
		self.run(['prep', '-e', fork], 'prep --enroll')
		self.run(['prep', '--edit-cover'], 'prep --edit-cover', cover)
		if prefixes:
			self.run(['prep', '--set-prefixes'] + list(prefixes),
				 'prep --set-prefixes')
		if version > 1:
			self.run(['prep', '--force-revision', str(version)],
				 'prep --force-revision')
		judge_auto_to_cc(self.run(['prep', '--auto-to-cc'],
					  'prep --auto-to-cc'))

	def format_patches(self, out: Path) -> List[Path]:
		shutil.rmtree(out, ignore_errors=True)
		self.run(['prep', '-p', str(out)], 'prep --format-patch')
		return sorted(p for p in out.glob('*.patch')
			      if not p.name.startswith('0000-'))

	def send(self, out: Path) -> List[Path]:
		"""The mails, written into out (-o: never sent)."""
		shutil.rmtree(out, ignore_errors=True)
		self.run(['send', '-o', str(out), '--no-sign'], 'send -o')
		mails = sorted(out.glob('*.eml'))
		if not mails:
			raise LabError(f'b4 send -o wrote no mails into {out}')
		return mails
