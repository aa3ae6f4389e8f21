# SPDX-License-Identifier: GPL-2.0
"""The kernels built from a tree: the check kernel and its build variants.

A Build is one kernel configuration of the tree under test: the lab's
guest config with our KUnit suites (kernel.guest.check_fragments), plus
optionally a config fragment and a patch from qemu/variants/.  A patch is
a change the lab needs that is not part of the series, e.g. mainline
behaviour the 6.12 base lacks; it is applied in a worktree of its own, on
top of exactly what the source tree holds (its commit, uncommitted changes
and new files), so a variant of a mutant carries the mutation too.  The
developer's tree is never touched.

Kernels builds each Build of one tree once, into a build directory of its
own (incremental, ccache), and remembers a Build that failed, so that every
user of a kernel (KUnit boots, static checks, lab cycles) shares it.
"""

import contextlib
import dataclasses
import os
import tempfile
from pathlib import Path
from typing import Callable, Dict, Iterator, Tuple

from hiblab import paths
from hiblab.base import kernel_tree, overlay
from hiblab.errors import LabError
from hiblab.git import Git, prepare_worktree
from hiblab.kernel import debian, guest


@dataclasses.dataclass(frozen=True)
class Build:
	"""A kernel: the tree under test, optionally changed for the lab."""
	patch: str = ''		# qemu/variants/<patch>.patch on top of the tree
	config: str = ''	# qemu/variants/<config>.config after the
				# check kernel's fragments
	# The bases that need the change; on any other base the tree's own
	# build is already this kernel (e.g. 7.3 always builds 5-level
	# paging).  (): every base.
	bases: Tuple[str, ...] = ()
	# 'debian': not built from the tree, but the base's kernel as Debian
	# ships it (kernel/debian.py, qemu/debian-kernels.txt).
	shipped: str = ''
	# Another base: that base's series kernel (the check kernel of its
	# topic), built in that base's tree, not from this tree.
	series_of: str = ''

	@property
	def name(self) -> str:
		if self.series_of:
			return f'series-{self.series_of}'
		return self.shipped or \
			'+'.join(n for n in (self.patch, self.config) if n) or \
			'plain'

	def on(self, base: str) -> 'Build':
		"""The build that gives this kernel on a base."""
		return self if not self.bases or base in self.bases else PLAIN


PLAIN = Build()
ONLY_6_12 = ('6.12',)
ONLY_7_3 = ('7.3',)
# 6.12 with mainline's cpuhp_smt_enable() grafted on; 7.3 has the real code
# (2066f00e5b2d).
MAINLINE_CORE_ONLINE = Build(patch='mainline-core-online', bases=ONLY_6_12)
LOCKDEP_TRACE = Build(config='lockdep-trace')
FOREIGN_RESTORE_MAGIC = Build(patch='foreign-restore-magic')
# The series' kernel with the image header code of a kernel before the
# paging-level fix: the other side of a kernel update.
HEADER_BEFORE_LEVELS = Build(patch='header-before-levels')
# The base's kernel as Debian ships it: the other side of "hibernate,
# upgrade, resume" for the users of Debian's kernel packages.
DEBIAN = Build(shipped='debian')
# Debian 12's kernel, on 7.3: the upgrade from bookworm to trixie's
# backports (or the way back).
DEBIAN_6_12 = Build(shipped='debian-6.12')
# The 6.12 series' kernel (our backport), on 7.3: the same upgrade between
# two kernels that both carry the series.
SERIES_6_12 = Build(series_of='6.12')

VARIANT_DIR = paths.REPO_ROOT / 'qemu' / 'variants'


def patch_path(name: str) -> Path:
	path = VARIANT_DIR / f'{name}.patch'
	if not path.is_file():
		raise LabError(f'no lab variant {name}', f'expected {path}')
	return path


def config_path(name: str) -> Path:
	path = VARIANT_DIR / f'{name}.config'
	if not path.is_file():
		raise LabError(f'no lab config fragment {name}', f'expected {path}')
	return path


# Variant commits are made by the tools, with a fixed identity and date.
_IDENTITY = {'GIT_AUTHOR_NAME': 'hibernate-lab', 'GIT_AUTHOR_EMAIL':
	     'hibernate-lab@localhost', 'GIT_COMMITTER_NAME': 'hibernate-lab',
	     'GIT_COMMITTER_EMAIL': 'hibernate-lab@localhost',
	     'GIT_AUTHOR_DATE': '2000-01-01T00:00:00Z',
	     'GIT_COMMITTER_DATE': '2000-01-01T00:00:00Z'}


def variant_commit(src: Git, name: str) -> str:
	"""A commit holding the source tree's state with the variant applied,
	built in a private index so nothing in any work tree changes."""
	head = src.text(['rev-parse', 'HEAD'])
	with tempfile.TemporaryDirectory() as tmp:
		env = dict(_IDENTITY, GIT_INDEX_FILE=str(Path(tmp) / 'index'))
		src.run(['read-tree', head], env=env)
		local = src.run(['diff', '--binary', 'HEAD'])
		if local.strip():
			src.run(['apply', '--cached', '--binary', '-'], stdin=local,
				env=env)
		for rel in src.text(['ls-files', '--others', '--exclude-standard',
				     '-z']).split('\0'):
			if rel:
				blob = src.text(['hash-object', '-w', '--', rel])
				mode = '100755' if os.access(src.worktree / rel,
							     os.X_OK) else '100644'
				src.run(['update-index', '--add', '--cacheinfo',
					 f'{mode},{blob},{rel}'], env=env)
		try:
			src.run(['apply', '--cached', str(patch_path(name))],
				env=env)
		except LabError as e:
			raise LabError(f'lab variant {name} no longer applies to '
				       f'{src.worktree} ({e})', f'regenerate '
				       f'{patch_path(name)} against the series') from e
		tree = src.text(['write-tree'], env=env)
	return src.text(['commit-tree', tree, '-p', head, '-m',
			 f'hibernate-lab variant {name}'], env=_IDENTITY)


def variant_tree(source: Path, cache: Path, base: str, name: str) -> Path:
	"""A worktree holding `source` with variant `name` applied.

	Going from one variant commit to the next checks out only the files
	that differ, so a variant touching a widely included header does not
	rebuild the kernel every time it is prepared.
	"""
	src = Git(source)
	commit = variant_commit(src, name)
	worktree = paths.worktree(cache, base, f'variant-{name}')
	prepare_worktree(src, worktree, commit)
	return worktree


def check_worktree(tree: Git, cache: Path, base: str) -> Git:
	"""The topic branch in the base's check worktree (hiblab.paths)."""
	return prepare_worktree(tree, paths.check_worktree(cache, base),
				tree.rev(overlay.TOPIC))


def check_kernels(worktree: Path, base: str, cache: Path, jobs: int,
		  progress: Callable[[str], None] = print,
		  nice: int = 0) -> 'Kernels':
	"""The topic's check kernel (the lab's guest configuration with our
	KUnit suites built in; the lab boots it with kunit.enable=0) and its
	variants, patch variants built in place: make test's KUnit, static
	checks and lab and make qemu-hibernate boot one build."""
	return Kernels(KernelsRequest(worktree, paths.CHECK_VARIANT, base,
				      cache, jobs, in_place=True, nice=nice),
		       progress)


@dataclasses.dataclass(frozen=True)
class KernelsRequest:
	tree: Path		# the tree under test (topic, check worktree, ...)
	variant: str		# names its build directories ('topic', 'check')
	base: str		# the tree's base (linux-base.txt section)
	cache: Path
	jobs: int
	# Patch variants built in the tree itself, from a copy of its plain
	# build: only the tools' own check worktree may be changed so (for
	# the moment of the build); any other tree gets a worktree per
	# variant, which compiles the whole kernel the first time.
	in_place: bool = False
	nice: int = 0		# the builds' nice level (guest.GuestRequest)


# In an in-place variant's build directory: which plain build it was
# copied from (plain_mark()).
IN_PLACE_STAMP = 'hiblab-copied-from'


def plain_mark(plain: guest.GuestImage) -> str:
	"""Which plain build this is: its vmlinux's path and time ('' when
	there is none: any copy of it is stale)."""
	vmlinux = plain.build / 'vmlinux'
	if not vmlinux.is_file():
		return ''
	return f'{vmlinux} {vmlinux.stat().st_mtime_ns}'


class Kernels:
	"""Guest images by Build for one tree, each built once."""

	def __init__(self, req: KernelsRequest,
		     progress: Callable[[str], None] = print) -> None:
		self.req = req
		self.progress = progress
		self.built: Dict[Build, guest.GuestImage] = {}
		self.failed: Dict[Build, str] = {}
		self.requests: Dict[Build, guest.GuestRequest] = {}

	def get(self, build: Build) -> guest.GuestImage:
		"""The image of a build (a variant the base does not need is its
		plain build); a LabError if it does not build, now or before."""
		build = build.on(self.req.base)
		if build in self.failed:
			raise LabError(self.failed[build])
		if build not in self.built:
			try:
				self.built[build] = self._build(build)
			except LabError as e:
				self.failed[build] = str(e)
				raise
		return self.built[build]

	def log(self, build: Build) -> Path:
		"""The build log of a build that was tried (a path that does
		not exist when it failed before its build started)."""
		req = self.requests.get(build.on(self.req.base))
		return guest.build_dir_for(req) / guest.BUILD_LOG if req else \
			Path('/nonexistent')

	def problem(self, build: Build) -> str:
		"""Why a build failed ('' when it did not, or was not tried)."""
		return self.failed.get(build.on(self.req.base), '')

	def configure(self, build: Build) -> str:
		"""A build's .config made and checked, nothing compiled: '' when
		every option of its fragments took, else what did not."""
		req = self.req
		greq = guest.GuestRequest(req.tree, req.cache,
					  f'{req.variant}-config-{build.name}',
					  req.jobs, self._fragments(build),
					  req.nice)
		try:
			guest.configure(greq)
		except LabError as e:
			return str(e)
		return ''

	def _fragments(self, build: Build) -> Tuple[Path, ...]:
		fragments = guest.check_fragments(self.req.base)
		if build.config:
			fragments += (config_path(build.config),)
		return fragments

	def _build(self, build: Build) -> guest.GuestImage:
		req = self.req
		if build.shipped:
			# The agent and gen_init_cpio come from the plain build.
			return debian.guest_image(
				debian.kernel_named(build.shipped, req.base),
				req.cache, self.get(PLAIN), self.progress)
		if build.series_of:
			return self._other_base(build.series_of)
		if build.patch and req.in_place:
			return self._build_in_place(build)
		tree, label = req.tree, req.variant
		if build.patch:
			# One worktree and build directory per variant, shared
			# by the topic and every mutant: incremental.
			tree = variant_tree(req.tree, req.cache, req.base,
					    build.patch)
			label = f'variant-{build.patch}'
		if build.config:
			label += f'-{build.config}'
		self.requests[build] = guest.GuestRequest(tree, req.cache, label,
							  req.jobs,
							  self._fragments(build),
							  req.nice)
		return guest.build_guest(self.requests[build], self.progress)

	def _other_base(self, base: str) -> guest.GuestImage:
		"""Another base's check kernel: its tree and topic made as make
		test makes them (fetched and imported the first time), then its
		build, shared with that base's own runs."""
		req = self.req
		tree = kernel_tree.ensure_topic(kernel_tree.TreeRequest(
			paths.REPO_ROOT, req.cache, base=base), self.progress)
		wt = check_worktree(tree.git, req.cache, base)
		return check_kernels(wt.worktree, base, req.cache, req.jobs,
				     self.progress).get(PLAIN)

	def _build_in_place(self, build: Build) -> guest.GuestImage:
		"""A patch variant applied to the tree for its build and taken
		out again, its build directory a copy of the plain build's at
		first: the patch's files and their dependents compile, nothing
		else (the same sources at the same paths)."""
		req = self.req
		plain = self.get(PLAIN)
		greq = guest.GuestRequest(req.tree, req.cache,
					  f'{req.variant}-in-place-{build.name}',
					  req.jobs, self._fragments(build),
					  req.nice)
		self.requests[build] = greq
		where = guest.build_dir_for(greq)
		# A copy of an older plain build would recompile everything that
		# changed since (a moved topic: about 1000 objects on 6.12); a
		# fresh copy (about 250 MB) compiles only the patch's dependents.
		mark = plain_mark(plain)
		stamp = where / IN_PLACE_STAMP
		if not mark or not stamp.is_file() or stamp.read_text() != mark:
			guest.copy_build(greq, plain.build, where)
			stamp.write_text(mark)
		with applied(Git(req.tree), patch_path(build.patch), build.patch):
			return guest.build_guest(greq, self.progress)


@contextlib.contextmanager
def applied(git: Git, patch: Path, name: str) -> Iterator[None]:
	"""The patch applied in the work tree (on top of its own changes)
	while the block runs, those files as they were afterwards."""
	touched = [l.split('\t')[-1] for l in git.text(
		['apply', '--numstat', str(patch)]).splitlines()]
	own = git.run(['diff', '--binary', 'HEAD', '--'] + touched)
	try:
		git.run(['apply', str(patch)])
	except LabError as e:
		raise LabError(f'lab variant {name} no longer applies to '
			       f'{git.worktree} ({e})', f'regenerate {patch} '
			       'against the series') from e
	try:
		yield
	finally:
		git.run(['checkout', '-q', '-f', 'HEAD', '--'] + touched)
		if own.strip():
			git.run(['apply', '--binary', '-'], stdin=own)
