# SPDX-License-Identifier: GPL-2.0
"""b4 as the series uses it: its environment (the sender's identity, a mail
server that cannot send), its failures as one line, and the cover letter it
is given."""

import os
from pathlib import Path
from typing import Dict, Optional

from hiblab import paths
from hiblab.errors import LabError
from hiblab.series.identity import Identity
from hiblab.series.runs import Run, judge_finished

COVER_LETTER = 'cover-letter.txt'


def read_cover(repo: Path, base: str) -> str:
	path = paths.overlay_dir(repo, base) / COVER_LETTER
	if not path.is_file():
		raise LabError(f'{path} is missing', 'write the cover letter '
			       '(subject line, blank line, body)')
	text = path.read_text()
	if 'EDITME' in text:
		raise LabError(f'{path} still says EDITME (b4 send refuses it)',
			       'finish the cover letter first')
	return text


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
