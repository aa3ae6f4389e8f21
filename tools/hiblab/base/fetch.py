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
from typing import Callable, Iterable, List, Optional

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


def main_archive(paths: Iterable[Path] = APT_SOURCES) -> Optional[Archive]:
	"""The archive of the machine's main suite, from its apt sources."""
	files: List[Path] = []
	for p in paths:
		if p.is_dir():
			files += sorted(p.glob('*.sources')) + sorted(p.glob('*.list'))
		elif p.is_file():
			files.append(p)
	for f in files:
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
	apt = home / 'apt'
	for d in (apt / 'lists' / 'partial', apt / 'cache' / 'archives' /
		  'partial'):
		d.mkdir(parents=True, exist_ok=True)
	log = home / 'fetch.log'
	deb = home / deb_name(pin)
	if not deb.is_file():
		archive = archive or main_archive()
		if archive is None:
			raise LabError('no Debian archive in the machine\'s apt '
				       'sources to fetch ' + pin.package + ' from',
				       'add the main suite to /etc/apt/sources.list')
		(apt / 'sources.list').write_text(sources_line(archive, pin.suite))
		progress(f'base: fetching {pin.package} {pin.package_version} '
			 f'from {pin.suite} (private apt state in {apt})')
		why = _run(['apt-get'] + apt_options(apt) + ['update'], home, log)
		if why:
			raise LabError(f'suite {pin.suite} is unreachable ({why})',
				       f'check the network and the archive, see {log}')
		why = _run(['apt-get'] + apt_options(apt) + [
			'download', f'{pin.package}={pin.package_version}'], home,
			log)
		if why or not deb.is_file():
			raise LabError(f'{pin.package} {pin.package_version} is not '
				       f'in {pin.suite} ({why or "no .deb written"})',
				       'the pinned version left the suite: pin the '
				       'one it has now (apt-cache policy), see ' +
				       str(log))
	actual = pins.sha256_file(deb)
	if actual != pin.deb_sha256:
		raise LabError(f'{deb.name} has sha256 {actual[:16]}..., '
			       f'linux-base.txt pins {pin.deb_sha256[:16]}...',
			       f'the archive changed the package: inspect {deb}, '
			       'then delete it or update the pin')
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
