# SPDX-License-Identifier: GPL-2.0
"""Every commit of a series built on its own, and W=1 on what it touches.

CommitBuilds runs the builds in the check worktree (where make test's
checks build, so they are incremental), one BuildRun per commit and
configuration; the judges decide from the runs alone: a commit that does
not build, or adds a W=1 warning its parent does not have, stops the run.

A build that passed is remembered under the cache (BuildMemo), keyed by
what decides its verdict: the commit's tree and its parent's, the
configuration, the compiler and linker.  The same commit on the same
parent is not built again by a later run or by a series mutant; its
verdict says it was remembered, and from which log."""

import dataclasses
import hashlib
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from hiblab import paths
from hiblab.base import overlay
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import ccache, guest
from hiblab.series.request import SeriesRequest
from hiblab.series.runs import Run, judge_finished, run_logged
from hiblab.verdict import FAIL, PASS, Verdict

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
	remembered: str = ''	# the earlier build's log, when it is one


# The form of a remembered build; a change to BuildRun or to what the
# key covers changes it, and every build runs again once.
MEMO_FORMAT = 1


def toolchain() -> str:
	"""The first lines of gcc's and ld's --version: a new compiler may
	warn where the old one did not."""
	out = []
	for tool in ('gcc', 'ld'):
		proc = subprocess.run([tool, '--version'], stdout=subprocess.PIPE,
				      stderr=subprocess.DEVNULL, text=True,
				      check=False)
		out.append(proc.stdout.split('\n', 1)[0])
	return '\n'.join(out)


def memo_key(tree: str, parent_tree: str, label: str, fragments: str,
	     tools: str) -> str:
	"""What a per-commit build's verdict depends on, hashed: the trees
	of the commit and its parent (W=1 compares the two), the
	configuration's label and text, and the toolchain."""
	h = hashlib.sha256()
	for part in (str(MEMO_FORMAT), tree, parent_tree, label, fragments,
		     tools):
		h.update(part.encode() + b'\0')
	return h.hexdigest()[:24]


def build_to_json(b: BuildRun) -> str:
	def run(r: Optional[Run]) -> Optional[dict]:
		return r and dict(dataclasses.asdict(r), log=str(r.log))
	return json.dumps(dict(dataclasses.asdict(b), make=[run(r) for r in b.make],
			       w1_parent=run(b.w1_parent),
			       w1_commit=run(b.w1_commit)))


def build_from_json(text: str) -> BuildRun:
	def run(d: Optional[dict]) -> Optional[Run]:
		return d and Run(**dict(d, argv=tuple(d['argv']), log=Path(d['log'])))
	d = json.loads(text)
	return BuildRun(**dict(d, touched=tuple(d['touched']),
			       make=tuple(run(r) for r in d['make']),
			       w1_parent=run(d['w1_parent']),
			       w1_commit=run(d['w1_commit'])))


@dataclasses.dataclass(frozen=True)
class BuildMemo:
	"""Passed per-commit builds, a JSON file each, by memo_key."""
	directory: Path

	def recall(self, key: str, b: BuildRun) -> Optional[BuildRun]:
		"""The remembered build under key, as commit b (its number and
		subject in this series), or None."""
		path = self.directory / f'{key}.json'
		try:
			old = build_from_json(path.read_text())
		except (OSError, ValueError, TypeError, KeyError):
			return None
		return dataclasses.replace(old, step=b.step, commit=b.commit,
					   subject=b.subject,
					   remembered=str(old.make[-1].log))

	def keep(self, key: str, b: BuildRun) -> None:
		"""Remembers b if it passed; a failure is built again next
		time (it may be the machine's: a full disk, a timeout)."""
		try:
			if build_error(b):
				return
		except LabError:
			return
		self.directory.mkdir(parents=True, exist_ok=True)
		tmp = self.directory / f'{key}.tmp'
		tmp.write_text(build_to_json(b))
		tmp.replace(self.directory / f'{key}.json')


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
			req.tree, paths.check_worktree(req.cache, req.base_name),
			req.base)
		commits = self.patch_commits(wt)
		memo = BuildMemo(paths.series_memo_dir(req.cache))
		tools = toolchain()
		for n, c in enumerate(commits, 1):
			subject = wt.text(['log', '-1', '--format=%s', c])
			touched = tuple(f for f in wt.text(['diff', '--name-only',
							   f'{c}~1', c]).split()
					if f.endswith('.c'))
			for label, fragments in self.configs():
				b = BuildRun(n, c, subject, label, touched, ())
				key = memo_key(wt.tree_of(c), wt.tree_of(f'{c}~1'),
					       label, merged_fragments(fragments),
					       tools)
				old = memo.recall(key, b)
				if old:
					self.progress(f'series: {n}/{len(commits)} '
						      f'"{subject}" ({label} config): '
						      f'built before ({old.remembered})')
					yield old
					continue
				self.progress(f'series: building {n}/{len(commits)} '
					      f'"{subject}" ({label} config)')
				build_wt.run(['checkout', '-q', '-f', '--detach', c])
				build = self.build_dir(build_wt.worktree, label,
						       fragments, c)
				build.mkdir(parents=True, exist_ok=True)
				ccache.start_stats(build)
				start = time.monotonic()
				b = self.run_build(build_wt, b, fragments, build)
				self.progress(f'series: {n}/{len(commits)} ({label}): '
					      f'{time.monotonic() - start:.0f}s; '
					      f'{ccache.build_stats(build).line()}')
				memo.keep(key, b)
				yield b

	def patch_commits(self, wt: Git) -> List[str]:
		"""The b4 branch's commits but b4's cover letter, an empty
		commit: not a patch, not built."""
		commits = wt.text(['rev-list', '--reverse', '--no-merges',
				   f'{self.req.base}..HEAD']).split()
		return [c for c in commits if
			wt.text(['diff', '--name-only', f'{c}~1', c])]

	def configs(self) -> List[Tuple[str, Tuple[Path, ...]]]:
		"""(label, config fragments) of the configurations asked for:
		'guest' (the lab's guest alone) and 'kunit' (with our KUnit
		suites: the check kernel's configuration)."""
		base = self.req.base_name
		return [c for c in (('guest', guest.guest_fragments(base)),
				    ('kunit', guest.check_fragments(base)))
			if c[0] in self.req.configs]

	def build_dir(self, tree: Path, label: str,
		      fragments: Tuple[Path, ...], commit: str) -> Path:
		if fragments == guest.check_fragments(self.req.base_name):
			# Where make test's KUnit, lab and gauntlet checks build
			# the check kernel, incremental from the topic branch,
			# or beside it (series_variant()).
			def build(variant: str) -> Path:
				return guest.build_dir_for(guest.GuestRequest(
					tree, self.req.cache, variant,
					self.req.jobs, fragments))
			return build(series_variant(
				self.req.tree, commit, build(paths.CHECK_VARIANT)))
		return paths.build_dir(
			self.req.cache, f'series-{label}-{self.req.base_name}')

	def run_build(self, wt: Git, b: BuildRun,
		      fragments: Tuple[Path, ...], build: Path) -> BuildRun:
		"""Builds b.commit (checked out in wt) with the fragments in
		build (build_dir(): made once per commit, since choosing it
		reads every .cmd file of the check build), then W=1 on the
		objects of the touched files at its parent and at it; b comes
		back with the runs filled in."""
		tree = wt.worktree
		merged = build / 'hiblab-fragment.config'
		merged.write_text(merged_fragments(fragments))
		# CC as every other build of the directory has it (ccache), or
		# kbuild would see a new command line and recompile everything.
		make = ['make', '-C', str(tree), f'O={build}',
			f'-j{self.req.jobs}'] + ccache.make_args()
		log = self.req.results / f'build-{b.label}.log'
		steps: List[Run] = []
		# allnoconfig again on every commit: symbols a later commit adds
		# are simply absent before it (KCONFIG_ALLCONFIG ignores them).
		for argv in (make + [f'KCONFIG_ALLCONFIG={merged}', 'allnoconfig'],
			     make + ['vmlinux']):
			steps.append(run_logged(argv, tree, log,
						ccache.env(self.req.cache,
							   ccache.stats_log(build))))
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

	def w1(self, make: List[str], build: Path, objs: List[str],
	       log: Path) -> Run:
		"""make W=1 of objs, removed first so that they recompile."""
		for o in objs:
			(build / o).unlink(missing_ok=True)
		return run_logged(w1_command(make, objs), Path(make[2]), log,
				  ccache.env(self.req.cache, ccache.stats_log(build)))


def merged_fragments(fragments: Sequence[Path]) -> str:
	"""The configuration a commit is built with (KCONFIG_ALLCONFIG)."""
	return ''.join(Path(f).read_text() for f in fragments)


def objects_built_from(build: Path, sources: List[str]) -> List[str]:
	"""Objects in a build directory whose recorded dependencies name one
	of the sources (a .c file may be #included, as ident_map.c is)."""
	if not sources:
		return []
	named = re.compile('/(' + '|'.join(re.escape(s) for s in sources) +
			   r')(\s|$)', re.M)
	objs = []
	for cmd in sorted(build.rglob('.*.o.cmd')):
		text = cmd.read_text(errors='replace')
		if named.search(text):
			obj = cmd.parent / cmd.name[1:-len('.cmd')]
			if obj.exists():
				objs.append(str(obj.relative_to(build)))
	return objs


def series_variant(tree: Git, commit: str, check_build: Path) -> str:
	"""Where a series' commit builds: in the check kernel's directory
	(paths.CHECK_VARIANT), incremental from the topic, unless its
	difference from the topic reaches more than half of that build's
	objects (a header nearly everything includes: 0008 changes
	asm/smp.h, so every stack without it is such a commit).  Those build
	in a directory of their own (paths.SERIES_VARIANT), incremental from
	one another, so the check build does not recompile nearly everything
	on the way there and again on the way back."""
	built = list(check_build.rglob('.*.o.cmd'))
	changed = tree.text(['diff', '--name-only', overlay.TOPIC,
			     commit]).split()
	if built and 2 * len(objects_built_from(check_build, changed)) > \
	   len(built):
		return paths.SERIES_VARIANT
	return paths.CHECK_VARIANT


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
	again = f' (built before, {b.remembered})' if b.remembered else ''
	return [Verdict(name, PASS, f'"{b.subject}" builds; no new W=1 '
			f'warning in {", ".join(b.touched) or "no .c file"}'
			+ again)]
