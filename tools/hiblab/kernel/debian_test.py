#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Debian's kernels as lab data: the pins, the modules a cycle loads, and
bad pins or packages refused in one line with nothing changed."""

import io
import re
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab.base import fetch
from hiblab.errors import LabError
from hiblab.kernel import debian

DATA = Path(__file__).parent / 'test_data' / 'debian'
SHA = 'a' * 64
PIN = f'''# comment
[debian-6.12]
base = 6.12
suite = bookworm-security
version = 6.12.118-1~deb12u1
release = 6.12.118+deb12-amd64
deb = linux-image-6.12.118+deb12-amd64 {SHA}
dbg = linux-image-6.12.118+deb12-amd64-dbg {'b' * 64}
'''


class PinsTest(unittest.TestCase):
	def test_the_repository_pins_each_base(self) -> None:
		for base in ('6.12', '7.3'):
			k = debian.kernel_of(base)
			self.assertEqual(k.base, base)
			self.assertTrue(k.debs and k.dbg[0].endswith('-dbg'))
		self.assertEqual(len(debian.kernel_of('7.3').debs), 3)

	def test_a_section(self) -> None:
		k = debian.parse_kernels(PIN)['debian-6.12']
		self.assertEqual((k.suite, k.release, k.debs[0][0], k.dbg[1]),
				 ('bookworm-security', '6.12.118+deb12-amd64',
				  'linux-image-6.12.118+deb12-amd64', 'b' * 64))
		self.assertEqual(k.deb_file(k.debs[0][0]), 'linux-image-6.12.118+'
				 'deb12-amd64_6.12.118-1~deb12u1_amd64.deb')

	def test_bad_pins_are_one_line(self) -> None:
		for text, says in (
			(PIN.replace(SHA, 'abc'), ':7: deb linux-image-6.12.118+deb12-'
			 'amd64 has no sha256'),
			(PIN.replace('release = ', 'relase = '), ':6: cannot read '
			 '"relase = 6.12.118+deb12-amd64"'),
			(PIN.replace('suite = bookworm-security\n', ''),
			 '[debian-6.12] lacks suite'),
			('base = 6.12\n', 'cannot read "base = 6.12"')):
			with self.subTest(says), \
			     self.assertRaisesRegex(LabError, re.escape(says)):
				debian.parse_kernels(text)
		with self.assertRaisesRegex(LabError, 'pins no Debian kernel of '
					    'base 9.9'):
			debian.kernel_of('9.9')
		# 'debian' is the base's own; a section name, another base's.
		self.assertEqual(debian.kernel_named('debian', '7.3').base, '7.3')
		self.assertEqual(debian.kernel_named('debian-6.12', '7.3').base,
				 '6.12')
		with self.assertRaisesRegex(LabError, r'has no \[debian-5.10\]'):
			debian.kernel_named('debian-5.10', '7.3')


class ModulesTest(unittest.TestCase):
	def order(self, *wanted: str) -> list:
		return debian.load_order((DATA / 'modules.dep').read_text(),
					 (DATA / 'modules.builtin').read_text(),
					 wanted)

	def test_the_disk_driver_alone(self) -> None:
		# virtio_pci is built into Debian's kernel, virtio_blk is not.
		self.assertEqual(self.order(*debian.WANTED_MODULES),
				 ['kernel/drivers/block/virtio_blk.ko.xz'])

	def test_dependencies_first_each_once(self) -> None:
		self.assertEqual(self.order('virtio_net', 'sd_mod', 'virtio_scsi'),
				 ['kernel/net/core/failover.ko.xz',
				  'kernel/drivers/net/net_failover.ko.xz',
				  'kernel/drivers/net/virtio_net.ko.xz',
				  'kernel/drivers/scsi/scsi_common.ko.xz',
				  'kernel/drivers/scsi/scsi_mod.ko.xz',
				  'kernel/drivers/scsi/sd_mod.ko.xz',
				  'kernel/drivers/scsi/virtio_scsi.ko.xz'])

	def test_a_kernel_without_the_driver_is_refused(self) -> None:
		with self.assertRaisesRegex(LabError, 'the kernel has no nvme, '
					    'neither built in nor as a module'):
			self.order('nvme')


def deb_with(files: dict) -> bytes:
	"""A data tar standing in for `dpkg-deb --fsys-tarfile`'s output."""
	out = io.BytesIO()
	with tarfile.open(fileobj=out, mode='w') as tar:
		for name, data in files.items():
			info = tarfile.TarInfo(name)
			info.size = len(data)
			tar.addfile(info, io.BytesIO(data))
	return out.getvalue()


class FetchTest(unittest.TestCase):
	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.cache = Path(tmp.name)
		self.k = debian.parse_kernels(PIN)['debian-6.12']
		self.home = debian.home(self.cache, self.k)

	def test_a_changed_deb_is_one_line_and_nothing_changes(self) -> None:
		self.home.mkdir(parents=True)
		for p, _ in self.k.debs + (self.k.dbg,):
			(self.home / self.k.deb_file(p)).write_bytes(b'other')
		with self.assertRaisesRegex(LabError, r'linux-image-6.12.118\+'
					    r'deb12-amd64_.*\.deb has sha256 .*, '
					    r'debian-kernels.txt pins aaaa'):
			debian.fetch_kernel(self.k, self.cache, lambda s: None,
					    fetch.Archive('http://x', 'k'))
		self.assertFalse((self.home / 'root').exists())
		self.assertEqual(sorted(p.name for p in self.home.iterdir()),
				 sorted(self.k.deb_file(p) for p, _ in
					self.k.debs + (self.k.dbg,)))

	def test_a_version_gone_from_the_suite_is_one_line(self) -> None:
		def apt(cmd, cwd, log):
			return 'E: Version \'6.12.118-1~deb12u1\' for ' \
				'\'linux-image-6.12.118+deb12-amd64\' was not ' \
				'found' if 'download' in cmd else None
		with mock.patch.object(fetch, '_run', apt), \
		     self.assertRaisesRegex(LabError, r'^linux-image-6.12.118\+'
					    r'deb12-amd64 6.12.118-1~deb12u1 is '
					    r'not in bookworm-security \(E: '
					    'Version'):
			debian.fetch_kernel(self.k, self.cache, lambda s: None,
					    fetch.Archive('http://x', 'k'))
		self.assertFalse((self.home / 'root').exists())

	def test_only_the_symbols_come_out_of_the_dbg_package(self) -> None:
		rel = self.k.release
		data = deb_with({
			'./usr/lib/debug/.build-id/ab/cd.debug': b'link',
			f'./usr/lib/debug/boot/System.map-{rel}': b'map',
			f'./usr/lib/debug/boot/vmlinux-{rel}': b'elf',
			f'./usr/lib/debug/lib/modules/{rel}/x.ko': b'x' * 100})
		self.home.mkdir(parents=True)
		with mock.patch.object(debian.subprocess, 'Popen') as popen:
			popen.return_value.stdout = io.BytesIO(data)
			debian.unpack_dbg(Path('/d.deb'), rel, self.home)
		self.assertEqual((self.home / 'vmlinux').read_bytes(), b'elf')
		self.assertEqual((self.home / 'System.map').read_bytes(), b'map')
		# 7.3's layout, with the symlink boot/ has.
		data = deb_with({
			f'./usr/lib/debug/lib/modules/{rel}/System.map': b'map2',
			f'./usr/lib/debug/lib/modules/{rel}/kernel/x.ko': b'x',
			f'./usr/lib/debug/lib/modules/{rel}/vmlinux': b'elf2'})
		with mock.patch.object(debian.subprocess, 'Popen') as popen:
			popen.return_value.stdout = io.BytesIO(data)
			debian.unpack_dbg(Path('/d.deb'), rel, self.home)
		self.assertEqual((self.home / 'vmlinux').read_bytes(), b'elf2')
		self.assertEqual((self.home / 'System.map').read_bytes(), b'map2')
		with mock.patch.object(debian.subprocess, 'Popen') as popen:
			popen.return_value.stdout = io.BytesIO(deb_with({}))
			with self.assertRaisesRegex(LabError, 'd.deb holds no '):
				debian.unpack_dbg(Path('/d.deb'), rel, self.home)


if __name__ == '__main__':
	unittest.main()
