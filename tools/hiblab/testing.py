# SPDX-License-Identifier: GPL-2.0
"""What the host unit tests share: a tiny fake base (a tarball, a Debian
source package's layout) that stands in for the kernel, and its fixture."""

import io
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab import paths
from hiblab.base import kernel_tree, overlay, pins
from hiblab.git import Git


FAKE_FILES = {
	'Makefile': 'VERSION = 6\n',
	'arch/x86/mm/ident_map.c': 'int ident;\n',
	'arch/x86/power/hibernate.c': 'int hib;\n',
	'kernel/power/old.c': 'int old;\n',
	# Ignored by the fake tree's own .gitignore, still part of the base;
	# '/*' is Debian's catch-all packaging rule.
	'.gitignore': '*.o\n/*\n!/debian/\n',
	'scripts/prebuilt.o': 'blob\n',
}


AUTHOR = 'Test Dev <dev@example.org>'


def make_tarball(path: Path, files: dict) -> None:
	with tarfile.open(path, 'w:xz') as tar:
		for name, text in sorted(files.items()):
			data = text.encode()
			info = tarfile.TarInfo(f'linux-source-fake/{name}')
			info.size = len(data)
			tar.addfile(info, io.BytesIO(data))


def installed_ok(package: str) -> str:
	return '1.0-1'


def quiet(_: str) -> None:
	pass


class FakeBase:
	"""A repo with linux-base.txt pinning a fake tarball, and a cache."""

	def __init__(self, root: Path, files: dict = FAKE_FILES) -> None:
		self.repo = root / 'repo'
		self.cache = root / 'cache'
		(self.repo / 'branch-overlay' / 'fake').mkdir(parents=True)
		self.tarball = root / 'linux-source-fake.tar.xz'
		make_tarball(self.tarball, files)
		self.write_pin(pins.sha256_file(self.tarball))

	def write_pin(self, sha: str) -> None:
		paths.base_pin_file(self.repo).write_text(
			'# fake pin\n'
			'[fake]\n'
			'package = linux-source-fake\n'
			'package_version = 1.0-1\n'
			f'tarball = {self.tarball}\n'
			f'sha256 = {sha}\n'
			'kernel_version = 6.0.1\n')

	@property
	def pin(self) -> pins.BasePin:
		return pins.read_pin(paths.base_pin_file(self.repo))

	@property
	def tree(self) -> Path:
		return paths.tree_dir(self.cache, 'fake')

	def request(self, force: bool = False) -> kernel_tree.TreeRequest:
		return kernel_tree.TreeRequest(self.repo, self.cache, force)

	def build(self, force: bool = False) -> kernel_tree.Tree:
		with mock.patch.object(pins, 'dpkg_version', installed_ok):
			return kernel_tree.build_topic(self.request(force), quiet)

	def open(self) -> kernel_tree.Tree:
		with mock.patch.object(pins, 'dpkg_version', installed_ok):
			return kernel_tree.open_base(self.request(), quiet)


def commit_in_tree(git: Git, message: str, date: str) -> str:
	env = dict(overlay.identity_env(AUTHOR, date))
	env['GIT_COMMITTER_DATE'] = '2030-01-01T00:00:00+00:00'
	git.run(['add', '-A'])
	git.run(['commit', '-q', '-F', '-'], stdin=message.encode(), env=env)
	return git.text(['rev-parse', 'HEAD'])


class LabTestCase(unittest.TestCase):
	def setUp(self) -> None:
		self._tmp = tempfile.TemporaryDirectory(prefix='lab-test-')
		self.root = Path(self._tmp.name)
		self.addCleanup(self._tmp.cleanup)
		self.fake = FakeBase(self.root)

