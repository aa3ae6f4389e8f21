# SPDX-License-Identifier: GPL-2.0
"""The pinned bases: read linux-base.txt, verify the tarball, import it.

linux-base.txt holds one `[name]` section per base (the first is the default
every tool uses without --base/BASE=).  A base comes either from the
machine's own apt sources (installed by `make setup`, tarball under /usr/src)
or, with `suite = ...`, from another Debian suite through base.fetch's
private apt state under the cache.

The import unpacks the tarball into a git tree outside the repository,
commits it as one root commit with a fixed identity and date (so the base
commit id is the same on every machine) and tags it base/<kernel_version>.
"""

import dataclasses
import hashlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Dict, Optional

from hiblab.errors import LabError
from hiblab.git import Git

PIN_KEYS = ('package', 'package_version', 'tarball', 'sha256',
	    'kernel_version')
# Only for a base from another suite: where to fetch it, and the .deb's hash.
SUITE_KEYS = ('suite', 'deb_sha256')

# Fixed identity and date of the base commit: the commit id then depends on
# the tarball's contents alone.
BASE_IDENTITY = {
	'GIT_AUTHOR_NAME': 'hibernate-lab base import',
	'GIT_AUTHOR_EMAIL': 'base-import@hibernate-lab.invalid',
	'GIT_AUTHOR_DATE': '1970-01-01T00:00:00+0000',
	'GIT_COMMITTER_NAME': 'hibernate-lab base import',
	'GIT_COMMITTER_EMAIL': 'base-import@hibernate-lab.invalid',
	'GIT_COMMITTER_DATE': '1970-01-01T00:00:00+0000',
}


@dataclasses.dataclass(frozen=True)
class BasePin:
	name: str		# the section name: '6.12', '7.3'
	package: str
	package_version: str
	tarball: Path		# the tarball's path as the package installs it
	sha256: str
	kernel_version: str
	suite: str = ''		# another suite to fetch from; '' = installed
	deb_sha256: str = ''	# the fetched .deb's sha256 (suite only)

	@property
	def tag(self) -> str:
		return f'base/{self.kernel_version}'

	def tarball_path(self, cache: Path) -> Path:
		"""Where the tarball is: under /usr/src for an installed base,
		in the unpacked .deb under the cache for a fetched one."""
		if not self.suite:
			return self.tarball
		return download_dir(cache, self.name) / 'root' / \
			self.tarball.relative_to('/')

	def install_hint(self) -> str:
		if self.suite:
			return (f'run `make setup BASE={self.name}` (fetches '
				f'{self.package} {self.package_version} from '
				f'{self.suite} into the cache)')
		return (f'run `make setup` (apt-get install '
			f'{self.package}={self.package_version})')


def download_dir(cache: Path, name: str) -> Path:
	"""A fetched base's .deb, private apt state and unpacked files."""
	return cache / 'bases' / name


_SECTION = re.compile(r'^\[([0-9A-Za-z._-]+)\]$')


def read_bases(path: Path) -> Dict[str, BasePin]:
	"""Every base by name, the default first.  `[name]` starts a section
	of `key = value` lines; '#' starts a comment."""
	try:
		lines = path.read_text().splitlines()
	except OSError as e:
		raise LabError(f'cannot read base pin {path}', e.strerror or '')
	sections: Dict[str, Dict[str, str]] = {}
	facts: Optional[Dict[str, str]] = None
	for n, line in enumerate(lines, 1):
		line = line.split('#', 1)[0].strip()
		if not line:
			continue
		m = _SECTION.match(line)
		if m:
			if m.group(1) in sections:
				raise LabError(f'{path}:{n}: base {m.group(1)} is '
					       'pinned twice', 'keep one section')
			facts = sections[m.group(1)] = {}
			continue
		key, sep, value = (s.strip() for s in line.partition('='))
		if facts is None or not sep or \
		   key not in PIN_KEYS + SUITE_KEYS or key in facts:
			raise LabError(f'{path}:{n}: bad line {line!r}',
				       'expected `[name]`, then one `key = value` '
				       f'per key of {", ".join(PIN_KEYS)} (and '
				       f'{", ".join(SUITE_KEYS)} for a fetched base)')
		facts[key] = value
	if not sections:
		raise LabError(f'{path}: no `[name]` section', 'pin a base')
	pins = {}
	for name, facts in sections.items():
		want = PIN_KEYS + (SUITE_KEYS if 'suite' in facts or
				   'deb_sha256' in facts else ())
		missing = [k for k in want if k not in facts]
		if missing:
			raise LabError(f'{path}: [{name}] misses '
				       f'{", ".join(missing)}',
				       'add the key(s) to the pin')
		pins[name] = BasePin(name, facts['package'],
				     facts['package_version'],
				     Path(facts['tarball']),
				     facts['sha256'].lower(),
				     facts['kernel_version'],
				     facts.get('suite', ''),
				     facts.get('deb_sha256', '').lower())
	return pins


def read_pin(path: Path, name: Optional[str] = None) -> BasePin:
	"""The base called `name`, or the default (the first) one."""
	pins = read_bases(path)
	if name is None:
		return next(iter(pins.values()))
	if name not in pins:
		raise LabError(f'unknown base {name!r}', 'choose one of '
			       f'{", ".join(pins)} (the sections of {path.name})')
	return pins[name]


def sha256_file(path: Path) -> str:
	digest = hashlib.sha256()
	with path.open('rb') as f:
		for chunk in iter(lambda: f.read(1 << 20), b''):
			digest.update(chunk)
	return digest.hexdigest()


def dpkg_version(package: str) -> Optional[str]:
	"""The installed version of a Debian package, or None."""
	try:
		out = subprocess.run(['dpkg-query', '-W', '-f',
				      '${db:Status-Abbrev}${Version}', package],
				     stdout=subprocess.PIPE,
				     stderr=subprocess.DEVNULL, check=False)
	except FileNotFoundError:
		return None
	text = out.stdout.decode().strip()
	return text[3:].strip() if text.startswith('ii') else None


def base_message(pin: BasePin) -> str:
	return (f'Import {pin.package} {pin.package_version} as the pristine '
		f'base\n\n'
		f'package: {pin.package}\n'
		f'version: {pin.package_version}\n'
		f'tarball: {pin.tarball.name}\n'
		f'sha256: {pin.sha256}\n'
		f'kernel: {pin.kernel_version}\n')


# Debian's linux-source tarball ignores every top-level path but debian/
# (a packaging rule): new files in the tree would be invisible to `git
# status` and need `git add -f`.
CATCH_ALL_IGNORE = '/*'


def unignore_new_files(git: Git) -> None:
	"""Drops the catch-all rule from the work tree's .gitignore only.

	The committed .gitignore stays as the tarball has it; skip-worktree
	keeps git from reporting the edit, and no patch of ours touches it.
	"""
	path = git.worktree / '.gitignore'
	if not path.is_file():
		return
	lines = path.read_text().splitlines(keepends=True)
	if not any(l.strip() == CATCH_ALL_IGNORE for l in lines):
		return
	git.run(['update-index', '--skip-worktree', '.gitignore'])
	path.write_text(''.join(l for l in lines
				if l.strip() != CATCH_ALL_IGNORE))


def check_existing(pin: BasePin, git: Git) -> str:
	"""Verifies an already imported tree; returns the base commit id."""
	if not git.is_repo():
		raise LabError(f'{git.worktree} exists but is not a git tree',
			       'remove it (or set HIBLAB_CACHE_DIR elsewhere) '
			       'and run `make tree` again')
	base = git.rev(pin.tag)
	if base is None:
		raise LabError(f'{git.worktree} has no tag {pin.tag} (imported '
			       f'from another pin?)', 'remove the tree or set '
			       'HIBLAB_CACHE_DIR to a new directory')
	message = git.text(['log', '-1', '--format=%B', base])
	parents = git.text(['log', '-1', '--format=%P', base])
	if parents or f'sha256: {pin.sha256}' not in message.splitlines():
		raise LabError(f'tag {pin.tag} in {git.worktree} points to '
			       f'{base[:12]}, which is not the import of sha256 '
			       f'{pin.sha256[:12]}', 'remove the tree or set '
			       'HIBLAB_CACHE_DIR to a new directory')
	return base


def verify_tarball(pin: BasePin, tarball: Path,
		   installed: Callable[[str], Optional[str]]) -> None:
	if pin.suite:
		if not tarball.is_file():
			raise LabError(f'{pin.package} {pin.package_version} is '
				       'not fetched', pin.install_hint())
	else:
		version = installed(pin.package)
		if version != pin.package_version:
			have = f'version {version} is' if version else 'it is not'
			raise LabError(f'{pin.package} {pin.package_version} is '
				       f'pinned but {have} installed',
				       pin.install_hint())
		if not tarball.is_file():
			raise LabError(f'{tarball} is missing although '
				       f'{pin.package} is installed',
				       f'reinstall it: apt-get install --reinstall '
				       f'{pin.package}={pin.package_version}')
	actual = sha256_file(tarball)
	if actual != pin.sha256:
		raise LabError(f'{tarball} has sha256 {actual[:16]}..., '
			       f'linux-base.txt pins {pin.sha256[:16]}...',
			       'the .deb matched deb_sha256, so the pin\'s two '
			       'hashes disagree: check the tarball and correct '
			       'sha256' if pin.suite else
			       'reinstall the pinned package version, or update '
			       'the pin if the base really changed')


def import_base(pin: BasePin, tree: Path, tarball: Path,
		installed: Optional[Callable[[str], Optional[str]]] = None,
		progress: Callable[[str], None] = print) -> Git:
	"""Makes `tree` hold the pinned base at tag base/<version>.

	A no-op when the tree is there and its tag is the verified import. The
	import happens in a sibling directory that is renamed into place only
	when complete, so an interrupted import never looks like a base.
	"""
	git = Git(tree)
	if tree.exists():
		check_existing(pin, git)
		unignore_new_files(git)
		return git
	verify_tarball(pin, tarball, installed or dpkg_version)
	staging = tree.with_name(tree.name + '.importing')
	shutil.rmtree(staging, ignore_errors=True)
	staging.mkdir(parents=True)
	progress(f'base: unpacking {tarball.name} ({pin.package_version})')
	proc = subprocess.run(['tar', '-xf', str(tarball), '-C',
			       str(staging), '--strip-components=1',
			       '--no-same-owner'], stderr=subprocess.PIPE,
			      check=False)
	if proc.returncode != 0:
		shutil.rmtree(staging, ignore_errors=True)
		raise LabError(f'cannot unpack {tarball}: '
			       f'{proc.stderr.decode().strip()}',
			       'check the disk space under the cache directory')
	progress(f'base: committing the pristine tree as {pin.tag}')
	stage = Git(staging)
	stage.run(['init', '-q', '-b', 'base'])
	stage.run(['config', 'feature.manyFiles', 'true'])
	# -f: the tarball is the truth, even where a .gitignore says otherwise.
	stage.run(['add', '-A', '-f', '.'])
	stage.run(['commit', '-q', '--no-verify', '-F', '-'],
		  env=BASE_IDENTITY, stdin=base_message(pin).encode())
	stage.run(['tag', pin.tag])
	staging.rename(tree)
	unignore_new_files(git)
	return git
