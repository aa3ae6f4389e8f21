# SPDX-License-Identifier: GPL-2.0
"""A base's source package from another Debian suite, without touching apt.

A base pinned with `suite = <suite>` (e.g. 7.3 from trixie-backports) is
not installed: a private apt configuration under the cache
(<cache>/bases/<name>/apt/: its own sources list naming only that suite,
its own lists and archive directories) downloads the pinned .deb, whose
sha256 must match the pin, and `dpkg-deb -x` unpacks it under
<cache>/bases/<name>/root/.  The machine's apt sources, lists and installed
packages stay exactly as they were.

The archive is the one the machine's apt already uses for its main suite
(read from its sources, never written here), signed by the same keyring.
"""

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence

from hiblab.base import pins
from hiblab.errors import LabError

APT_SOURCES = (Path('/etc/apt/sources.list'),
	       Path('/etc/apt/sources.list.d'))
DEFAULT_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'


@dataclasses.dataclass(frozen=True)
class Archive:
	uri: str
	keyring: str


def _deb822_stanzas(text: str) -> Iterable[dict]:
	for block in re.split(r'\n\s*\n', text):
		fields = {}
		for line in block.splitlines():
			if line.startswith('#') or ':' not in line or \
			   line[:1].isspace():
				continue
			key, _, value = line.partition(':')
			fields[key.strip().lower()] = value.strip()
		if fields:
			yield fields


def _is_main_suite(suite: str) -> bool:
	"""bookworm, not bookworm-security or a path-style suite."""
	return bool(suite) and '/' not in suite and \
		not suite.endswith('-security')


def _source_files(paths: Iterable[Path]) -> List[Path]:
	files: List[Path] = []
	for p in paths:
		if p.is_dir():
			files += sorted(p.glob('*.sources')) + sorted(p.glob('*.list'))
		elif p.is_file():
			files.append(p)
	return files


def main_archive(paths: Iterable[Path] = APT_SOURCES) -> Optional[Archive]:
	"""The archive of the machine's main suite, from its apt sources."""
	for f in _source_files(paths):
		text = f.read_text(errors='replace')
		if f.suffix == '.sources':
			for s in _deb822_stanzas(text):
				suites = s.get('suites', '').split()
				if 'deb' in s.get('types', '').split() and \
				   s.get('enabled', 'yes') != 'no' and \
				   any(_is_main_suite(x) for x in suites):
					return Archive(s.get('uris', '').split()[0],
						       s.get('signed-by', DEFAULT_KEYRING))
			continue
		for line in text.splitlines():
			m = re.match(r'\s*deb\s+(\[[^]]*\]\s+)?(\S+)\s+(\S+)', line)
			if m and _is_main_suite(m.group(3)):
				opts = m.group(1) or ''
				key = re.search(r'signed-by=(\S+?)\]?(\s|$)', opts)
				return Archive(m.group(2), key.group(1) if key
					       else DEFAULT_KEYRING)
	return None


def apt_options(apt: Path) -> List[str]:
	"""apt-get options that confine apt to the private directory."""
	return ['-o', f'Dir::Etc::sourcelist={apt / "sources.list"}',
		'-o', 'Dir::Etc::sourceparts=/dev/null',
		'-o', f'Dir::State::Lists={apt / "lists"}',
		'-o', f'Dir::Cache={apt / "cache"}',
		'-o', 'Debug::NoLocking=1', '-q']


def sources_line(archive: Archive, suite: str) -> str:
	return f'deb [signed-by={archive.keyring}] {archive.uri} {suite} main\n'


def deb_name(pin: pins.BasePin) -> str:
	"""apt-get download's file name (an epoch's ':' becomes %3a)."""
	version = pin.package_version.replace(':', '%3a')
	return f'{pin.package}_{version}_all.deb'


@dataclasses.dataclass(frozen=True)
class Deb:
	"""A package to download: name, version, and the file apt-get
	download writes."""
	package: str
	version: str
	file: str


def download(home: Path, suite: str, debs: Sequence[Deb], who: str,
	     progress: Callable[[str], None],
	     archive: Optional[Archive]) -> None:
	"""The .debs not yet in home, downloaded from suite with a private
	apt state under home/apt; who names the caller in progress lines."""
	wanted = [d for d in debs if not (home / d.file).is_file()]
	if not wanted:
		return
	apt = home / 'apt'
	for d in (apt / 'lists' / 'partial', apt / 'cache' / 'archives' /
		  'partial'):
		d.mkdir(parents=True, exist_ok=True)
	log = home / 'fetch.log'
	if archive is None:
		raise LabError('no Debian archive in the machine\'s apt '
			       'sources to fetch ' + wanted[0].package + ' from',
			       'add the main suite to /etc/apt/sources.list')
	(apt / 'sources.list').write_text(sources_line(archive, suite))
	progress(f'{who}: fetching ' + ', '.join(d.package for d in wanted) +
		 f' {wanted[0].version} from {suite} (private apt state in '
		 f'{apt})')
	why = _run(['apt-get'] + apt_options(apt) + ['update'], home, log)
	if why:
		raise LabError(f'suite {suite} is unreachable ({why})',
			       f'check the network and the archive, see {log}')
	for d in wanted:
		why = _run(['apt-get'] + apt_options(apt) + [
			'download', f'{d.package}={d.version}'], home, log)
		if why or not (home / d.file).is_file():
			raise LabError(f'{d.package} {d.version} is not in '
				       f'{suite} ({why or "no .deb written"})',
				       'the pinned version left the suite: pin the '
				       'one it has now (apt-cache policy), see ' +
				       str(log))


def check_deb(deb: Path, sha256: str, pin_file: str) -> None:
	"""A downloaded .deb must have its pinned sha256; it is kept either
	way, for inspection."""
	actual = pins.sha256_file(deb)
	if actual != sha256:
		raise LabError(f'{deb.name} has sha256 {actual[:16]}..., '
			       f'{pin_file} pins {sha256[:16]}...',
			       f'the archive changed the package: inspect {deb}, '
			       'then delete it or update the pin')


def archive_for(suite: str, paths: Iterable[Path] = APT_SOURCES
		) -> Optional[Archive]:
	"""The archive of the machine's apt sources that lists suite
	(bookworm-security is at another URI than bookworm), else the
	main suite's (trixie-backports is in no source here)."""
	for f in _source_files(paths):
		text = f.read_text(errors='replace')
		if f.suffix == '.sources':
			for s in _deb822_stanzas(text):
				if 'deb' in s.get('types', '').split() and \
				   s.get('enabled', 'yes') != 'no' and \
				   suite in s.get('suites', '').split():
					return Archive(s.get('uris', '').split()[0],
						       s.get('signed-by', DEFAULT_KEYRING))
	return main_archive(paths)


def _run(cmd: List[str], cwd: Path, log: Path) -> Optional[str]:
	"""None on success, else the last line of the command's output."""
	with log.open('a') as f:
		f.write('$ ' + ' '.join(cmd) + '\n')
		f.flush()
		rc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
				    check=False).returncode
	if rc == 0:
		return None
	lines = [l for l in log.read_text().splitlines() if l.strip()]
	return lines[-1] if lines else f'exit {rc}'


def fetch(pin: pins.BasePin, cache: Path,
	  progress: Callable[[str], None] = print,
	  archive: Optional[Archive] = None) -> Path:
	"""The pinned .deb checked and unpacked; returns the tarball's path.

	A no-op when the unpacked tarball is there with the pinned sha256.
	"""
	tarball = pin.tarball_path(cache)
	if tarball.is_file() and pins.sha256_file(tarball) == pin.sha256:
		return tarball
	home = pins.download_dir(cache, pin.name)
	log = home / 'fetch.log'
	deb = home / deb_name(pin)
	download(home, pin.suite, [Deb(pin.package, pin.package_version,
				       deb.name)], 'base', progress,
		 archive or main_archive())
	check_deb(deb, pin.deb_sha256, 'linux-base.txt')
	root = home / 'root'
	staging = home / 'root.unpacking'
	shutil.rmtree(staging, ignore_errors=True)
	progress(f'base: unpacking {deb.name}')
	why = _run(['dpkg-deb', '-x', str(deb), str(staging)], home, log)
	if why:
		shutil.rmtree(staging, ignore_errors=True)
		raise LabError(f'cannot unpack {deb.name} ({why})',
			       'check the disk space under the cache directory')
	shutil.rmtree(root, ignore_errors=True)
	staging.rename(root)
	if not tarball.is_file():
		raise LabError(f'{deb.name} holds no {pin.tarball}',
			       'fix `tarball` in linux-base.txt')
	return tarball
