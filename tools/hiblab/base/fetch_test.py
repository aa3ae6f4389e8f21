#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of base.fetch: a base from another suite, without the system's apt."""

import hashlib
import io
import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab.base import fetch, pins
from hiblab.errors import LabError

DEB822 = '''Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
'''


def pin(tarball_sha: str, deb_sha: str) -> pins.BasePin:
	return pins.BasePin('7.3', 'linux-source-7.3', '7.3.4-1~bpo13+1',
				Path('/usr/src/linux-source-7.3.tar.xz'),
				tarball_sha, '7.3.4', 'trixie-backports', deb_sha)


class ArchiveTest(unittest.TestCase):
	def test_main_suite_of_deb822_sources(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			d = Path(tmp)
			(d / 'security.sources').write_text(DEB822.split('\n\n')[1])
			(d / 'z.sources').write_text(DEB822)
			got = fetch.main_archive([d])
		self.assertEqual(got, fetch.Archive(
			'http://mirror.example/debian',
			'/usr/share/keyrings/debian-archive-keyring.gpg'))

	def test_one_line_sources_and_none(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			f = Path(tmp) / 'sources.list'
			f.write_text('deb http://m.example/debian-security '
				     'bookworm-security main\n'
				     'deb [signed-by=/k.gpg] http://m.example/debian '
				     'bookworm main\n')
			self.assertEqual(fetch.main_archive([f]),
					 fetch.Archive('http://m.example/debian',
							   '/k.gpg'))
			f.write_text('# nothing\n')
			self.assertIsNone(fetch.main_archive([f]))

	def test_private_apt_state(self) -> None:
		opts = fetch.apt_options(Path('/c/bases/7.3/apt'))
		self.assertIn('Dir::Etc::sourcelist=/c/bases/7.3/apt/sources.list',
			      opts)
		# The machine's sources.list.d must not be read.
		self.assertIn('Dir::Etc::sourceparts=/dev/null', opts)
		self.assertIn('Dir::State::Lists=/c/bases/7.3/apt/lists', opts)
		self.assertEqual(fetch.sources_line(
			fetch.Archive('http://m/debian', '/k.gpg'),
			'trixie-backports'),
			'deb [signed-by=/k.gpg] http://m/debian trixie-backports main\n')
		self.assertEqual(fetch.deb_name(pin('', '')),
				 'linux-source-7.3_7.3.4-1~bpo13+1_all.deb')


class FetchTest(unittest.TestCase):
	"""apt-get and dpkg-deb replaced by fakes that act on the cache."""

	def setUp(self) -> None:
		self._tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self._tmp.cleanup)
		self.cache = Path(self._tmp.name)
		self.archive = fetch.Archive('http://m/debian', '/k.gpg')
		buf = io.BytesIO()
		with tarfile.open(fileobj=buf, mode='w:xz') as t:
			info = tarfile.TarInfo('linux-source-7.3/Makefile')
			info.size = 3
			t.addfile(info, io.BytesIO(b'x\n\n'))
		self.tarball = buf.getvalue()
		self.deb = b'a fake .deb'
		self.calls = []

	def fake_run(self, cmd, cwd=None, stdout=None, **kw):
		self.calls.append(cmd)
		rc = 0
		if cmd[:1] == ['apt-get'] and cmd[-1] == 'update' and \
		   getattr(self, 'offline', False):
			stdout.write('E: Failed to fetch trixie-backports\n')
			rc = 100
		elif 'download' in cmd:
			(Path(cwd) / fetch.deb_name(self.pin)).write_bytes(
				self.deb)
		elif cmd[0] == 'dpkg-deb':
			dest = Path(cmd[3]) / 'usr' / 'src'
			dest.mkdir(parents=True)
			(dest / 'linux-source-7.3.tar.xz').write_bytes(self.tarball)
		return subprocess.CompletedProcess(cmd, rc)

	def fetch(self) -> Path:
		with mock.patch.object(subprocess, 'run', self.fake_run):
			return fetch.fetch(self.pin, self.cache, lambda s: None,
					       self.archive)

	def sha(self, data: bytes) -> str:
		return hashlib.sha256(data).hexdigest()

	def test_fetch_checks_and_unpacks_then_is_a_noop(self) -> None:
		self.pin = pin(self.sha(self.tarball), self.sha(self.deb))
		got = self.fetch()
		self.assertEqual(got, self.pin.tarball_path(self.cache))
		self.assertEqual(got.read_bytes(), self.tarball)
		apt = self.cache / 'bases' / '7.3' / 'apt'
		self.assertEqual((apt / 'sources.list').read_text(),
				 'deb [signed-by=/k.gpg] http://m/debian '
				 'trixie-backports main\n')
		self.assertTrue(all(f'Dir::State::Lists={apt / "lists"}' in c
				    for c in self.calls if c[0] == 'apt-get'))
		self.calls.clear()
		self.fetch()
		self.assertEqual(self.calls, [])

	def test_changed_deb_is_one_line_and_kept(self) -> None:
		self.pin = pin(self.sha(self.tarball), '0' * 64)
		with self.assertRaisesRegex(LabError, r'has sha256 .*, '
					    'linux-base.txt pins 0000.*: the '
					    'archive changed the package'):
			self.fetch()
		deb = self.cache / 'bases' / '7.3' / fetch.deb_name(self.pin)
		self.assertEqual(deb.read_bytes(), self.deb)
		self.assertFalse(self.pin.tarball_path(self.cache).exists())

	def test_unreachable_suite_is_one_line(self) -> None:
		self.pin = pin(self.sha(self.tarball), self.sha(self.deb))
		self.offline = True
		with self.assertRaisesRegex(LabError, 'suite trixie-backports is '
					    'unreachable .*Failed to fetch'):
			self.fetch()

	def test_changed_tarball_is_refused_by_the_import(self) -> None:
		self.pin = pin('1' * 64, self.sha(self.deb))
		tarball = self.fetch()
		with self.assertRaisesRegex(LabError, 'linux-base.txt pins 1111'):
			pins.import_base(self.pin, self.cache / 'linux-7.3',
					     tarball, None, lambda s: None)
		self.assertFalse((self.cache / 'linux-7.3').exists())


if __name__ == '__main__':
	unittest.main()
