# SPDX-License-Identifier: GPL-2.0
"""The processes a series check runs, as records: a command, its exit code,
its output and the log it went to.  A run killed at its timeout is recorded,
not raised, so that the judges can name what hung."""

import dataclasses
import subprocess
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

from hiblab.errors import LabError
from hiblab.verdict import PASS, Verdict

# A cold build of one commit takes minutes; one that has not finished in
# half an hour hangs (or the machine is far too busy to judge anything).
RUN_TIMEOUT = 1800


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


def judge_finished(run: Run, what: str) -> Run:
	"""The run, unless it was killed at its timeout: a hang is not a
	finding about the series, so it stops the run naming what hung."""
	if run.timed_out:
		raise LabError(f'{what} timed out after {run.timeout:.0f} s',
			       f'see the end of {run.log} for where it hung, '
			       'and rerun on an otherwise idle machine')
	return run


def passed(verdicts: Sequence[Verdict]) -> bool:
	return all(v.status == PASS for v in verdicts)
