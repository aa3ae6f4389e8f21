# SPDX-License-Identifier: GPL-2.0
"""branch-overlay/ <-> topic branch.

A step is one patch of the series, kept as a directory NNNN-<slug>/:

  commit.txt  'Author: Name <mail>' and 'Date: <ISO 8601>' lines, a blank
	      line, then the kernel-style commit message.
  manifest    one line per path the patch touches:
		<status> <mode> <preimage blob or -> <path>
	      status A (added), M (modified) or D (deleted); the preimage is the
	      blob the path had before the patch, so a step that no longer fits
	      its base is refused instead of silently reverting the base.
  files/      the touched files at their tree paths, as they are after the
	      patch (none for D).

Commits are built with git plumbing in a private index: nothing in the work
tree changes until every step has applied, and files whose content does not
change keep their mtime, so kernel builds stay incremental.  Committer and
author are both taken from commit.txt, so one overlay always yields the same
commit ids.
"""

import dataclasses
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.git import Git

TOPIC = 'topic'
# The commit the topic branch had when it was last built from, or exported
# to, the overlay.  A topic that moved past it holds unexported work.
SYNCED_REF = 'refs/hibernate-lab/synced'
STEP_RE = re.compile(r'^(\d{4})-[a-z0-9._-]+$')


@dataclasses.dataclass(frozen=True)
class Change:
	status: str		# 'A', 'M' or 'D'
	mode: str		# new mode, '-' for D
	preimage: str		# blob before the patch, '-' for A
	path: str


@dataclasses.dataclass(frozen=True)
class Step:
	directory: Path
	author: str
	date: str
	message: str
	changes: Tuple[Change, ...]

	@property
	def name(self) -> str:
		return self.directory.name

	@property
	def subject(self) -> str:
		return self.message.splitlines()[0] if self.message else ''


def parse_commit_txt(path: Path) -> Tuple[str, str, str]:
	text = path.read_text()
	head, sep, message = text.partition('\n\n')
	headers = dict(line.split(': ', 1) for line in head.splitlines()
		       if ': ' in line)
	if not sep or 'Author' not in headers or 'Date' not in headers or \
	   not message.strip():
		raise LabError(f'{path}: malformed', 'it needs Author: and Date: '
			       'lines, a blank line and a commit message')
	return headers['Author'], headers['Date'], message


def parse_manifest(path: Path) -> Tuple[Change, ...]:
	changes = []
	for n, line in enumerate(path.read_text().splitlines(), 1):
		if not line.strip():
			continue
		fields = line.split(' ', 3)
		if len(fields) != 4 or fields[0] not in 'AMD':
			raise LabError(f'{path}:{n}: bad line {line!r}', 'expected '
				       '"<A|M|D> <mode> <preimage|-> <path>"')
		changes.append(Change(*fields))
	return tuple(changes)


def read_steps(overlay: Path) -> List[Step]:
	"""The steps of the series, in order; an empty series is valid."""
	if not overlay.is_dir():
		return []
	steps = []
	for d in sorted(overlay.iterdir()):
		if not d.is_dir() or not STEP_RE.match(d.name):
			continue
		author, date, message = parse_commit_txt(d / 'commit.txt')
		steps.append(Step(d, author, date, message,
				  parse_manifest(d / 'manifest')))
	numbers = [int(STEP_RE.match(s.name).group(1)) for s in steps]
	if numbers != list(range(1, len(steps) + 1)):
		raise LabError(f'{overlay}: steps are numbered {numbers}',
			       'number them 0001, 0002, ... without gaps')
	return steps


def identity_env(author: str, date: str) -> Dict[str, str]:
	m = re.match(r'^(.*?)\s*<([^>]*)>$', author)
	if not m:
		raise LabError(f'bad author {author!r}', 'use "Name <mail>"')
	name, mail = m.groups()
	return {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': mail,
		'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_NAME': name,
		'GIT_COMMITTER_EMAIL': mail, 'GIT_COMMITTER_DATE': date}


def _index_entries(git: Git, env: Dict[str, str],
		   paths: List[str]) -> Dict[str, Tuple[str, str]]:
	out = git.run(['ls-files', '-s', '-z', '--'] + paths, env=env)
	entries = {}
	for rec in out.decode().split('\0'):
		if rec:
			meta, path = rec.split('\t', 1)
			mode, blob, _ = meta.split()
			entries[path] = (mode, blob)
	return entries


def _apply_step(git: Git, env: Dict[str, str], step: Step) -> None:
	paths = [c.path for c in step.changes]
	current = _index_entries(git, env, paths) if paths else {}
	for c in step.changes:
		have = current.get(c.path)
		if c.status == 'A' and have is not None:
			raise LabError(f'step {step.name} no longer applies: it adds '
				       f'{c.path}, which the tree already has',
				       'rebase the step (edit in the tree, then '
				       '`make export`)')
		if c.status in 'MD' and (have is None or have[1] != c.preimage):
			what = 'is missing' if have is None else \
				f'is blob {have[1][:12]}'
			raise LabError(f'step {step.name} no longer applies: '
				       f'{c.path} {what}, the step was made '
				       f'against {c.preimage[:12]}',
				       'rebase the step (edit in the tree, then '
				       '`make export`)')
	written = [c for c in step.changes if c.status != 'D']
	blobs: List[str] = []
	if written:
		files = [str(step.directory / 'files' / c.path) for c in written]
		for f in files:
			if not os.path.lexists(f):
				raise LabError(f'{f} is missing', 'the manifest names '
					       'it; restore it or fix the manifest')
		blobs = git.text(['hash-object', '-w', '--stdin-paths',
				  '--no-filters'], stdin='\n'.join(files).encode()
				 ).splitlines()
	info = [f'{c.mode} {b}\t{c.path}' for c, b in zip(written, blobs)]
	info += [f'0 {"0" * 40}\t{c.path}' for c in step.changes
		 if c.status == 'D']
	if info:
		git.run(['update-index', '--index-info'], env=env,
			stdin=('\n'.join(info) + '\n').encode())


def build_commits(git: Git, base: str, steps: List[Step]) -> str:
	"""Commits every step on top of `base`; returns the last commit id.

	Only objects are written: refs, index and work tree stay as they were.
	"""
	with tempfile.TemporaryDirectory(prefix='overlay-index-') as tmp:
		env = {'GIT_INDEX_FILE': str(Path(tmp) / 'index')}
		git.run(['read-tree', base], env=env)
		parent = base
		for step in steps:
			_apply_step(git, env, step)
			tree = git.text(['write-tree'], env=env)
			parent = git.text(['commit-tree', tree, '-p', parent, '-F',
					   '-'], stdin=step.message.encode(),
					  env={**env, **identity_env(step.author,
								      step.date)})
	return parent


def unexported(git: Git, base: str) -> Optional[str]:
	"""Why rebuilding the topic branch would lose work, or None."""
	dirty = git.dirty_paths()
	if dirty:
		more = f' (+{len(dirty) - 3} more)' if len(dirty) > 3 else ''
		return (f'the tree has uncommitted changes: '
			f'{", ".join(dirty[:3])}{more}')
	topic = git.rev(TOPIC)
	if topic is None:
		return None
	synced = git.rev(SYNCED_REF) or base
	if topic != synced:
		count = git.text(['rev-list', '--count', f'{synced}..{topic}'])
		return (f'branch {TOPIC} has moved from the overlay '
			f'({count} commit(s) not exported)')
	return None


def sync_topic(git: Git, base: str, steps: List[Step], force: bool = False,
	       progress: Callable[[str], None] = print) -> str:
	"""Points the topic branch at the overlay's commits and checks it out."""
	reason = unexported(git, base)
	if reason and not force:
		raise LabError(reason, 'commit and run `make export` first, or '
			       'rebuild anyway with FORCE=1')
	head = build_commits(git, base, steps)
	progress(f'tree: {TOPIC} = {head[:12]} ({len(steps)} step(s) on '
		 f'{base[:12]})')
	git.run(['checkout', '-q'] + (['-f'] if force else []) +
		['-B', TOPIC, head])
	git.run(['update-ref', SYNCED_REF, head])
	return head


def slug(subject: str) -> str:
	s = re.sub(r'[^a-z0-9]+', '-', subject.lower()).strip('-')
	return s[:52].rstrip('-') or 'patch'


def _export_commit(git: Git, commit: str, dest: Path) -> None:
	head = git.text(['log', '-1', '--format=Author: %an <%ae>%nDate: %aI',
			 commit])
	# The raw message, byte for byte, so a rebuild reproduces the commit.
	raw_commit = git.run(['cat-file', 'commit', commit]).decode()
	message = raw_commit.partition('\n\n')[2]
	(dest / 'commit.txt').write_text(head + '\n\n' + message)
	raw = git.run(['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id',
		       commit])
	fields = raw.decode().split('\0')
	lines = []
	for meta, path in zip(fields[0::2], fields[1::2]):
		_, new_mode, old_blob, new_blob, status = meta[1:].split()
		if status[0] not in 'AMD':
			raise LabError(f'commit {commit[:12]} changes {path} with '
				       f'status {status}', 'split it into delete '
				       'and add')
		if status == 'D':
			lines.append(f'D - {old_blob} {path}')
			continue
		pre = '-' if status == 'A' else old_blob
		lines.append(f'{status} {new_mode} {pre} {path}')
		target = dest / 'files' / path
		target.parent.mkdir(parents=True, exist_ok=True)
		target.write_bytes(git.run(['cat-file', 'blob', new_blob]))
	(dest / 'manifest').write_text(''.join(l + '\n' for l in lines))


def export_topic(git: Git, base: str, overlay: Path,
		 progress: Callable[[str], None] = print,
		 mark_synced: bool = True) -> int:
	"""Writes base..topic back as overlay steps; returns the step count.

	Non-step files in the overlay (the cover letter) are kept.  The new
	steps are written beside the old ones and swapped in at the end.
	"""
	dirty = git.dirty_paths()
	if dirty:
		raise LabError(f'the tree has uncommitted changes: '
			       f'{", ".join(dirty[:3])}', 'commit them first; '
			       'export takes commits only')
	topic = git.rev(TOPIC)
	if topic is None:
		raise LabError(f'no branch {TOPIC} in {git.worktree}',
			       'run `make tree` first')
	if git.text(['rev-list', '--merges', f'{base}..{topic}']):
		raise LabError(f'{TOPIC} contains merges', 'make it linear '
			       '(git rebase) before exporting')
	if git.text(['merge-base', base, topic]) != base:
		raise LabError(f'{TOPIC} is not based on the pinned base',
			       f'rebase it onto {base[:12]}')
	commits = git.text(['rev-list', '--reverse', f'{base}..{topic}'])
	commits_list = commits.split() if commits else []
	overlay.mkdir(parents=True, exist_ok=True)
	staging = Path(tempfile.mkdtemp(prefix='.export-', dir=overlay))
	try:
		for n, commit in enumerate(commits_list, 1):
			subject = git.text(['log', '-1', '--format=%s', commit])
			dest = staging / f'{n:04d}-{slug(subject)}'
			dest.mkdir()
			_export_commit(git, commit, dest)
			progress(f'export: {dest.name}')
		for old in overlay.iterdir():
			if old.is_dir() and STEP_RE.match(old.name):
				shutil.rmtree(old)
		for new in sorted(staging.iterdir()):
			new.rename(overlay / new.name)
	finally:
		shutil.rmtree(staging, ignore_errors=True)
	if mark_synced:
		git.run(['update-ref', SYNCED_REF, topic])
	return len(commits_list)
