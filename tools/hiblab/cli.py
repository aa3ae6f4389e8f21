# SPDX-License-Identifier: GPL-2.0
"""How every entry point runs and ends: lab.py, kunit.py, mutants.py,
series.py and qemu_hibernate.py.

Each tool used to carry its own copy of one skeleton (cache lock, topic
branch, results directory, verdict lines, a LabError turned into a line),
and the copies drifted: only lab.py caught Ctrl-C, an unknown --base was
exit 2 in one tool and 1 in the others, and only two tools closed an error
with their VERDICT line.  The skeleton lives here once, so every tool ends
one of four ways:

  0    the run passed (or --help)
  1    the run failed: FAIL verdict lines, or a LabError, which prints
       `error: <problem>: <action>` on stderr and then
       `VERDICT <tool>: FAIL (see the error above)`
  2    bad usage (argparse's errors, UsageError): `error: ...` and nothing
       ran, so there is no VERDICT line
  130  Ctrl-C: one `error: <tool> interrupted (Ctrl-C); ...` line naming
       what the run left behind (its partial results directory, a tree
       step or scratch worktrees the next run redoes)

No traceback reaches the user for any of these.
"""

import contextlib
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Set

from hiblab import lock, paths, verdict
from hiblab.base import kernel_tree, pins
from hiblab.errors import LabError

PASSED, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


class UsageError(LabError):
	"""Bad input on the command line: exit 2 like argparse, and no
	VERDICT line, because nothing was run that could be judged."""


def _entries(directory: Path) -> Set[Path]:
	try:
		return set(directory.iterdir())
	except OSError:
		return set()


class Session:
	"""One run of a tool: the cache lock it holds until it ends, and what
	it has left on disk, so that Ctrl-C can say where the pieces are."""

	def __init__(self, tool: str, repo: Optional[Path] = None,
		     cache: Optional[Path] = None) -> None:
		self.tool = tool
		self.repo = repo if repo is not None else paths.REPO_ROOT
		self.cache = cache if cache is not None else paths.cache_dir()
		self.notes: List[str] = []
		self._before = _entries(paths.results_dir(self.repo))
		self._held = contextlib.ExitStack()
		self._locked = False

	def lock(self) -> None:
		"""Takes the cache lock (hiblab.lock) once; held until the run ends,
		so reports are written before another run may start."""
		if not self._locked:
			self._held.enter_context(lock.CacheLock(self.cache))
			self._locked = True

	def topic(self, base: Optional[str]) -> kernel_tree.Tree:
		"""The base's tree with its topic branch, under the cache lock.
		Stopped halfway (an import takes minutes), it leaves a staging
		directory or a half-moved branch, which the next run redoes."""
		self.lock()
		note = tree_note(self.cache)
		self.leave(note)
		tree = kernel_tree.ensure_topic(kernel_tree.TreeRequest(
			self.repo, self.cache, base=base))
		self.notes.remove(note)
		return tree

	def results(self, kind: str) -> Path:
		"""A new results/<kind>-<time>/ directory for this run."""
		return paths.run_dir(kind, self.repo)

	def leave(self, note: str) -> None:
		"""Something besides results/ that an interrupted run leaves
		behind (a worktree holding a mutant, ...)."""
		self.notes.append(note)

	def left_behind(self) -> List[str]:
		"""Every results/ entry made since the run started (also those a
		library made itself, as hiblab.checks does), then the notes."""
		new = _entries(paths.results_dir(self.repo)) - self._before
		results = [f'partial results in {p}' for p in sorted(new)]
		return (results or ['no results written']) + self.notes

	def close(self) -> None:
		self._held.close()


def pick_base(name: Optional[str], repo: Optional[Path] = None) -> str:
	"""The base --base names (default: the first).  An unknown name is bad
	usage (exit 2) in every tool; a broken linux-base.txt stays a LabError
	(exit 1), because no command line fixes it."""
	path = paths.base_pin_file(repo or paths.REPO_ROOT)
	pins.read_bases(path)	# a broken file: its own LabError
	try:
		return pins.read_pin(path, name).name
	except LabError as e:
		raise UsageError(e.problem, e.action) from e


def report(verdicts: Sequence[verdict.Verdict],
	   results: Optional[Path] = None) -> bool:
	"""One line per verdict on stdout, all of them in
	<results>/verdicts.json if given; True if any failed."""
	for v in verdicts:
		verdict.report(v, sys.stdout)
	if results is not None:
		verdict.write_json(results / 'verdicts.json', list(verdicts))
	return any(v.status == verdict.FAIL for v in verdicts)


def verdict_line(tool: str, verdicts: Sequence[verdict.Verdict]) -> str:
	"""The closing line: PASS only if nothing failed."""
	failed = any(v.status == verdict.FAIL for v in verdicts)
	return (f'VERDICT {tool}: {"FAIL" if failed else "PASS"} '
		f'({verdict.summary(verdicts)})')


def exit_code(verdicts: Sequence[verdict.Verdict]) -> int:
	"""1 if any verdict failed: what make and CI read."""
	return FAILED if any(v.status == verdict.FAIL
			     for v in verdicts) else PASSED


def tree_note(cache: Path) -> str:
	"""What a tree step stopped halfway leaves: base.pins's staging
	directory or a half-moved topic branch, both redone next time."""
	return f'an unfinished tree step in {cache} (the next run redoes it)'


def scratch_note(cache: Path) -> str:
	"""What an interrupted series or gauntlet leaves in the cache: its
	worktrees mid-change, which prepare_worktree() resets next time."""
	return (f'scratch worktrees in {cache / "worktrees"} (the next run '
		'resets them)')


def interrupted_line(tool: str, left: Sequence[str]) -> str:
	"""One line: a stopped run is not judged, so no VERDICT follows."""
	return f'error: {tool} interrupted (Ctrl-C); {"; ".join(left)}'


def _error(line: str) -> None:
	"""stderr, after whatever stdout holds, so the lines keep their order
	when both go to one file."""
	sys.stdout.flush()
	print(line, file=sys.stderr, flush=True)


def run(tool: str, body: Callable[[Session], int],
	repo: Optional[Path] = None, cache: Optional[Path] = None) -> int:
	"""Runs body(session) and ends it the one way every tool ends (see
	the module's docstring); returns the exit status."""
	session = Session(tool, repo, cache)
	try:
		with contextlib.closing(session):
			return body(session)
	except UsageError as e:
		_error(f'error: {e}')
		return USAGE
	except LabError as e:
		_error(f'error: {e}')
		print(f'VERDICT {tool}: FAIL (see the error above)', flush=True)
		return FAILED
	except KeyboardInterrupt:
		_error(interrupted_line(tool, session.left_behind()))
		return INTERRUPTED
