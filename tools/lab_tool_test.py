#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the host tools; a tiny fake base stands in for the kernel."""

import dataclasses
import io
import os
import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path
from typing import Optional
from unittest import mock

import lab_base
import lab_cycle
import lab_gdb
import lab_git
import lab_guest
import lab_kunit
import lab_lab
import lab_lock
import lab_mutants
import lab_overlay
import lab_paths
import lab_protocol
import lab_scenarios
import lab_series
import lab_setup
import lab_swap
import lab_symbols
import lab_tree
import lab_variants
import lab_verdict
from lab_errors import LabError
from lab_git import Git

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
		self.write_pin(lab_base.sha256_file(self.tarball))

	def write_pin(self, sha: str) -> None:
		lab_paths.base_pin_file(self.repo).write_text(
			'# fake pin\n'
			'[fake]\n'
			'package = linux-source-fake\n'
			'package_version = 1.0-1\n'
			f'tarball = {self.tarball}\n'
			f'sha256 = {sha}\n'
			'kernel_version = 6.0.1\n')

	@property
	def pin(self) -> lab_base.BasePin:
		return lab_base.read_pin(lab_paths.base_pin_file(self.repo))

	@property
	def tree(self) -> Path:
		return lab_paths.tree_dir(self.cache, 'fake')

	def request(self, force: bool = False) -> lab_tree.TreeRequest:
		return lab_tree.TreeRequest(self.repo, self.cache, force)

	def build(self, force: bool = False) -> lab_tree.Tree:
		with mock.patch.object(lab_base, 'dpkg_version', installed_ok):
			return lab_tree.build_topic(self.request(force), quiet)

	def open(self) -> lab_tree.Tree:
		with mock.patch.object(lab_base, 'dpkg_version', installed_ok):
			return lab_tree.open_base(self.request(), quiet)


def commit_in_tree(git: Git, message: str, date: str) -> str:
	env = dict(lab_overlay.identity_env(AUTHOR, date))
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


class PinTest(LabTestCase):
	def test_reads_every_fact(self) -> None:
		pin = self.fake.pin
		self.assertEqual(pin.package, 'linux-source-fake')
		self.assertEqual(pin.kernel_version, '6.0.1')
		self.assertEqual(pin.tag, 'base/6.0.1')
		self.assertEqual(pin.tarball, self.fake.tarball)

	def test_real_pin_is_complete(self) -> None:
		pin = lab_base.read_pin(lab_paths.base_pin_file())
		self.assertEqual(pin.package, 'linux-source-6.12')
		self.assertEqual(len(pin.sha256), 64)
		self.assertTrue(pin.package_version.startswith(pin.kernel_version))

	def test_missing_key_is_named(self) -> None:
		path = self.root / 'pin.txt'
		path.write_text('[b]\npackage = x\n')
		with self.assertRaisesRegex(LabError, r'\[b\] misses package_version'):
			lab_base.read_pin(path)
		path.write_text(self.fetched_pin().replace('deb_sha256', '#'))
		with self.assertRaisesRegex(LabError, r'\[7.3\] misses deb_sha256'):
			lab_base.read_pin(path)

	def test_bad_and_duplicate_lines(self) -> None:
		path = self.root / 'pin.txt'
		for text in ('[b]\npackage x\n', '[b]\ncolor = red\n',
			     '[b]\npackage = a\npackage = b\n', 'package = a\n'):
			path.write_text(text)
			with self.assertRaisesRegex(LabError, r'pin.txt:\d: bad line'):
				lab_base.read_pin(path)
		path.write_text('[b]\n[b]\n')
		with self.assertRaisesRegex(LabError, 'pinned twice'):
			lab_base.read_pin(path)

	def fetched_pin(self) -> str:
		return ('[7.3]\npackage = linux-source-7.3\n'
			'package_version = 7.3.4-1~bpo13+1\nsuite = trixie-backports\n'
			f'deb_sha256 = {"a" * 64}\n'
			'tarball = /usr/src/linux-source-7.3.tar.xz\n'
			f'sha256 = {"b" * 64}\nkernel_version = 7.3.4\n')

	def test_bases_by_name_default_first(self) -> None:
		path = self.root / 'pin.txt'
		path.write_text(lab_paths.base_pin_file(self.fake.repo).read_text() +
				'\n' + self.fetched_pin())
		self.assertEqual(list(lab_base.read_bases(path)), ['fake', '7.3'])
		self.assertEqual(lab_base.read_pin(path).name, 'fake')
		pin = lab_base.read_pin(path, '7.3')
		self.assertEqual((pin.suite, pin.deb_sha256), ('trixie-backports',
							      'a' * 64))
		# A fetched base's tarball is in the cache, never in /usr/src.
		self.assertEqual(pin.tarball_path(Path('/c')), Path(
			'/c/bases/7.3/root/usr/src/linux-source-7.3.tar.xz'))
		self.assertEqual(lab_base.read_pin(path).tarball_path(Path('/c')),
				 self.fake.tarball)
		with self.assertRaisesRegex(LabError, r"unknown base '7\.4': "
					    'choose one of fake, 7.3'):
			lab_base.read_pin(path, '7.4')

	def test_real_bases(self) -> None:
		pins = lab_base.read_bases(lab_paths.base_pin_file())
		self.assertEqual(list(pins), ['6.12', '7.3'])
		self.assertFalse(pins['6.12'].suite)
		self.assertEqual(pins['7.3'].suite, 'trixie-backports')
		for pin in pins.values():
			self.assertTrue(pin.package_version.startswith(
				pin.kernel_version))


class ImportTest(LabTestCase):
	def test_import_commits_and_tags_the_tarball(self) -> None:
		tree = self.fake.open()
		git = tree.git
		self.assertEqual(git.rev('base/6.0.1'), tree.base)
		files = git.text(['ls-files']).splitlines()
		self.assertEqual(sorted(files), sorted(FAKE_FILES))
		msg = git.text(['log', '-1', '--format=%B', tree.base])
		self.assertIn(f'sha256: {self.fake.pin.sha256}', msg)
		self.assertIn('version: 1.0-1', msg)
		self.assertFalse(git.dirty_paths())

	def test_new_files_are_visible_despite_debians_catch_all(self) -> None:
		git = self.fake.open().git
		self.assertFalse(git.dirty_paths())
		(self.fake.tree / 'arch/x86/mm/new_kunit.c').write_text('x\n')
		self.assertEqual(git.dirty_paths(), ['arch/x86/mm/new_kunit.c'])
		(self.fake.tree / 'arch/x86/mm/new.o').write_text('x\n')
		git.run(['add', 'arch'])
		self.assertEqual(git.text(['diff', '--cached', '--name-only']),
				 'arch/x86/mm/new_kunit.c')
		self.assertIn('/*', git.text(['show', 'HEAD:.gitignore']))

	def test_reimport_is_a_noop_and_ids_are_machine_independent(self) -> None:
		first = self.fake.open()
		mtime = (self.fake.tree / 'Makefile').stat().st_mtime_ns
		self.assertEqual(self.fake.open().base, first.base)
		self.assertEqual((self.fake.tree / 'Makefile').stat().st_mtime_ns,
				 mtime)
		other = lab_base.import_base(self.fake.pin, self.root / 'other',
					     self.fake.tarball, installed_ok, quiet)
		self.assertEqual(other.rev('base/6.0.1'), first.base)

	def test_wrong_sha256_is_refused_and_nothing_written(self) -> None:
		self.fake.write_pin('0' * 64)
		with self.assertRaisesRegex(LabError, 'linux-base.txt pins 0000'):
			self.fake.open()
		self.assertFalse(self.fake.tree.exists())
		self.assertFalse(self.fake.cache.exists() and
				 any(self.fake.cache.iterdir()))

	def test_missing_package_says_make_setup(self) -> None:
		with self.assertRaisesRegex(LabError, 'not installed: run `make '
					    'setup`'):
			lab_base.import_base(self.fake.pin, self.fake.tree,
					     self.fake.tarball, lambda p: None, quiet)
		with self.assertRaisesRegex(LabError, 'version 0.9 is installed'):
			lab_base.import_base(self.fake.pin, self.fake.tree,
					     self.fake.tarball, lambda p: '0.9', quiet)
		self.assertFalse(self.fake.tree.exists())

	def test_base_tag_pointing_elsewhere_is_refused(self) -> None:
		git = self.fake.open().git
		(self.fake.tree / 'Makefile').write_text('VERSION = 7\n')
		commit_in_tree(git, 'other\n', '2026-01-01T00:00:00+00:00')
		git.run(['tag', '-f', 'base/6.0.1'])
		with self.assertRaisesRegex(LabError, 'not the import of sha256'):
			self.fake.open()

	def test_stale_tree_of_another_pin_is_refused(self) -> None:
		self.fake.open()
		self.fake.tree.joinpath('.git').rename(self.root / 'moved-git')
		with self.assertRaisesRegex(LabError, 'is not a git tree'):
			self.fake.open()

	def test_interrupted_import_is_redone(self) -> None:
		staging = self.fake.tree.with_name('linux-fake.importing')
		staging.mkdir(parents=True)
		(staging / 'junk').write_text('half\n')
		tree = self.fake.open()
		self.assertFalse(staging.exists())
		self.assertNotIn('junk', tree.git.text(['ls-files']))


class OverlayTest(LabTestCase):
	def edit_and_commit(self, git: Git) -> None:
		"""Two commits that modify, add (with mode), and delete."""
		tree = self.fake.tree
		(tree / 'arch/x86/mm/ident_map.c').write_text('int ident2;\n')
		(tree / 'arch/x86/mm/ident_map_kunit.c').write_text('int t;\n')
		commit_in_tree(git, 'x86/mm/ident_map: Add a test\n\nWhy.\n\n'
			       'Signed-off-by: Test Dev <dev@example.org>\n',
			       '2026-12-01T10:00:00+01:00')
		(tree / 'kernel/power/old.c').unlink()
		script = tree / 'scripts/run.sh'
		script.write_text('#!/bin/sh\n')
		script.chmod(0o755)
		commit_in_tree(git, 'PM: hibernate: Drop old.c\n\nBecause.\n',
			       '2026-12-02T10:00:00+00:00')

	def test_empty_series_is_the_base(self) -> None:
		tree = self.fake.build()
		self.assertEqual(tree.git.rev('topic'), tree.base)
		self.assertEqual(tree.git.text(['symbolic-ref', 'HEAD']),
				 'refs/heads/topic')

	def test_export_then_rebuild_gives_the_same_tree(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		dev_tree = git.tree_of('topic')
		overlay = lab_paths.overlay_dir(self.fake.repo, 'fake')
		(overlay / 'cover-letter.txt').write_text('cover\n')
		self.assertEqual(lab_overlay.export_topic(
			git, git.rev('base/6.0.1'), overlay, quiet), 2)
		steps = sorted(p.name for p in overlay.iterdir())
		self.assertEqual(steps, ['0001-x86-mm-ident-map-add-a-test',
					 '0002-pm-hibernate-drop-old-c',
					 'cover-letter.txt'])
		manifest = (overlay / steps[1] / 'manifest').read_text()
		self.assertIn('A 100755 - scripts/run.sh', manifest)
		self.assertRegex(manifest, r'D - [0-9a-f]{40} kernel/power/old.c')
		first = self.fake.build().git.rev('topic')
		self.assertEqual(git.tree_of('topic'), dev_tree)
		self.assertEqual(self.fake.build().git.rev('topic'), first)
		log = git.text(['log', '--format=%an|%aI|%cI|%s', 'topic', '-2'])
		self.assertEqual(log.splitlines()[1], 'Test Dev|'
				 '2026-12-01T10:00:00+01:00|'
				 '2026-12-01T10:00:00+01:00|'
				 'x86/mm/ident_map: Add a test')
		body = git.text(['log', '-1', '--format=%B', 'topic~1'])
		self.assertTrue(body.endswith('Signed-off-by: Test Dev '
					      '<dev@example.org>'))

	def test_commit_ids_do_not_depend_on_the_machine(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		lab_overlay.export_topic(git, git.rev('base/6.0.1'),
					 lab_paths.overlay_dir(self.fake.repo, 'fake'), quiet)
		first = self.fake.build().git.rev('topic')
		other = FakeBase(self.root / 'second')
		other_overlay = lab_paths.overlay_dir(other.repo, 'fake')
		other_overlay.rmdir()
		lab_paths.overlay_dir(self.fake.repo, 'fake').rename(other_overlay)
		self.assertEqual(other.build().git.rev('topic'), first)

	def test_rebuild_leaves_unchanged_files_alone(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		lab_overlay.export_topic(git, git.rev('base/6.0.1'),
					 lab_paths.overlay_dir(self.fake.repo, 'fake'), quiet)
		path = self.fake.tree / 'arch/x86/mm/ident_map.c'
		before = path.stat().st_mtime_ns
		self.fake.build()
		self.assertEqual(path.stat().st_mtime_ns, before)

	def test_dirty_tree_is_refused_and_kept(self) -> None:
		git = self.fake.build().git
		edited = self.fake.tree / 'Makefile'
		edited.write_text('work in progress\n')
		with self.assertRaisesRegex(LabError, 'uncommitted changes: '
					    'Makefile'):
			self.fake.build()
		self.assertEqual(edited.read_text(), 'work in progress\n')
		self.fake.build(force=True)
		self.assertEqual(edited.read_text(), 'VERSION = 6\n')
		self.assertFalse(git.dirty_paths())

	def test_unexported_commit_is_refused_and_kept(self) -> None:
		git = self.fake.build().git
		(self.fake.tree / 'Makefile').write_text('VERSION = 8\n')
		mine = commit_in_tree(git, 'mine\n', '2026-12-01T00:00:00+00:00')
		with self.assertRaisesRegex(LabError, r'1 commit\(s\) not exported'):
			self.fake.build()
		self.assertEqual(git.rev('topic'), mine)
		with self.assertRaisesRegex(LabError, 'not exported'):
			with mock.patch.object(lab_base, 'dpkg_version',
					       installed_ok):
				lab_tree.build_topic(self.fake.request(), quiet)
		with mock.patch.object(lab_base, 'dpkg_version', installed_ok):
			tree = lab_tree.ensure_topic(self.fake.request(), quiet)
		self.assertEqual(tree.git.rev('topic'), mine)

	def test_step_that_no_longer_applies_leaves_the_tree(self) -> None:
		git = self.fake.build().git
		self.edit_and_commit(git)
		overlay = lab_paths.overlay_dir(self.fake.repo, 'fake')
		lab_overlay.export_topic(git, git.rev('base/6.0.1'), overlay, quiet)
		good = self.fake.build().git.rev('topic')
		manifest = next(overlay.glob('0001-*')) / 'manifest'
		text = manifest.read_text()
		pre = text.split()[2]
		manifest.write_text(text.replace(pre, 'f' * 40))
		with self.assertRaisesRegex(LabError, 'step 0001-x86-mm-ident-map-'
					    'add-a-test no longer applies: '
					    'arch/x86/mm/ident_map.c is blob'):
			self.fake.build()
		self.assertEqual(git.rev('topic'), good)
		self.assertFalse(git.dirty_paths())
		manifest.write_text('A 100644 - Makefile\n')
		with self.assertRaisesRegex(LabError, 'adds Makefile, which the '
					    'tree already has'):
			self.fake.build()

	def test_malformed_overlay_is_named(self) -> None:
		overlay = lab_paths.overlay_dir(self.fake.repo, 'fake')
		step = overlay / '0002-gap'
		step.mkdir()
		(step / 'commit.txt').write_text(f'Author: {AUTHOR}\nDate: '
						 '2026-01-01T00:00:00Z\n\nmsg\n')
		(step / 'manifest').write_text('')
		with self.assertRaisesRegex(LabError, 'numbered'):
			lab_overlay.read_steps(overlay)
		step.rename(overlay / '0001-ok')
		(overlay / '0001-ok' / 'manifest').write_text('X 1 2 path\n')
		with self.assertRaisesRegex(LabError, 'manifest:1: bad line'):
			lab_overlay.read_steps(overlay)
		(overlay / '0001-ok' / 'commit.txt').write_text('msg only\n')
		with self.assertRaisesRegex(LabError, 'commit.txt: malformed'):
			lab_overlay.read_steps(overlay)

	def test_slug(self) -> None:
		self.assertEqual(lab_overlay.slug('x86/power/64: Fix it!'),
				 'x86-power-64-fix-it')
		self.assertLessEqual(len(lab_overlay.slug('a' * 200)), 52)


class SetupTest(unittest.TestCase):
	def test_missing_respects_pinned_versions(self) -> None:
		have = {'b4': '0.12', 'linux-source-6.12': '6.12.117-1'}
		self.assertEqual(lab_setup.missing(
			['b4', 'flex', 'linux-source-6.12=6.12.118-1'], have.get),
			['flex', 'linux-source-6.12=6.12.118-1'])

	def test_package_list_and_pin(self) -> None:
		pin = lab_base.read_pin(lab_paths.base_pin_file())
		specs = lab_setup.wanted([pin], lab_setup.read_package_list())
		self.assertIn('qemu-system-x86', specs)
		self.assertIn(f'linux-source-6.12={pin.package_version}', specs)

	def test_not_root_prints_the_command(self) -> None:
		with mock.patch.object(os, 'geteuid', return_value=1000):
			with self.assertRaisesRegex(LabError, 'run: sudo apt-get '
						    'update && sudo apt-get install'):
				lab_setup.install(['flex'], Path('/nonexistent'), quiet)

	def test_nothing_missing_runs_nothing(self) -> None:
		with mock.patch.object(subprocess, 'run') as run:
			lab_setup.install([], Path('/nonexistent'), quiet)
		run.assert_not_called()


class PathsTest(unittest.TestCase):
	def test_cache_dir_override_and_xdg(self) -> None:
		self.assertEqual(lab_paths.cache_dir({'HIBLAB_CACHE_DIR': '/x/y'}),
				 Path('/x/y'))
		self.assertEqual(lab_paths.cache_dir({'XDG_CACHE_HOME': '/c'}),
				 Path('/c/hibernate-lab'))


TEST_DATA = Path(__file__).resolve().parent / 'test_data'


class KunitTest(unittest.TestCase):
	def command(self, args: list) -> lab_kunit.KunitCommand:
		return lab_kunit.kunit_command(Path('/t'), Path('/c'), '6.12',
					       Path('/r'), args, 2)

	def test_defaults_are_added(self) -> None:
		cmd = self.command(['run', '--arch=x86_64'])
		self.assertEqual(cmd.argv[0], '/t/tools/testing/kunit/kunit.py')
		self.assertEqual(cmd.argv[1], 'run')
		self.assertIn('--jobs=2', cmd.argv)
		self.assertIn('--json=/r/kunit.json', cmd.argv)
		configs = [a for a in cmd.argv if a.startswith('--kunitconfig=')]
		self.assertEqual([Path(a.split('=', 1)[1]).name for a in configs],
				 ['x86-hibernate.kunitconfig'])
		build = [a for a in cmd.argv if a.startswith('--build_dir=/c/build/'
							      '6.12-kunit-')]
		self.assertEqual(len(build), 1)
		self.assertEqual(cmd.argv[-1], '--arch=x86_64')
		self.assertEqual(str(cmd.build_dir), build[0].split('=', 1)[1])
		self.assertEqual(cmd.build_dir, lab_kunit.default_build_dir(
			Path('/c'), '6.12', ['--arch=x86_64']))
		# Each base builds in its own directory.
		self.assertNotEqual(cmd.build_dir, lab_kunit.default_build_dir(
			Path('/c'), '7.3', ['--arch=x86_64']))

	def test_prepare_creates_the_parent_only(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			cmd = lab_kunit.kunit_command(Path('/t'), Path(tmp) / 'new-cache',
						      '6.12', Path('/r'), ['run'], 2)
			cmd.prepare()
			self.assertTrue(cmd.build_dir.parent.is_dir())
			self.assertFalse(cmd.build_dir.exists())

	def test_user_options_win_and_pass_through(self) -> None:
		cmd = self.command(['run', '--kunitconfig=x', '--build_dir=b',
				    '--jobs=7', '--raw_output', 'x86_ident_map'])
		self.assertEqual(cmd.argv[2:], ['--kunitconfig=x', '--build_dir=b',
					       '--jobs=7', '--raw_output',
					       'x86_ident_map'])

	def test_variants_get_their_own_build_dir(self) -> None:
		one = self.command(['run', '--arch=x86_64'])
		two = self.command(['run', '--arch=x86_64', '--kconfig_add',
				    'CONFIG_KASAN=y'])
		dirs = [[a for a in c.argv if a.startswith('--build_dir')]
			for c in (one, two)]
		self.assertNotEqual(dirs[0], dirs[1])
		self.assertEqual(dirs[0], [a for a in self.command(
			['exec', '--arch=x86_64', '--qemu_args=-cpu max']).argv
			if a.startswith('--build_dir')])

	def test_own_kunitconfig_gets_its_own_build_dir(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			mine = Path(tmp) / 'm.kunitconfig'
			mine.write_text('CONFIG_KUNIT=y\nCONFIG_MODULES=y\n')
			default = lab_kunit.build_variant(lab_kunit.kunitconfigs(),
							  ['--arch=x86_64'])
			own = lab_kunit.build_variant(lab_kunit.kunitconfigs(),
						      ['--arch=x86_64',
						       f'--kunitconfig={mine}'])
			spaced = lab_kunit.build_variant(lab_kunit.kunitconfigs(),
							 ['--arch', 'x86_64',
							  '--kunitconfig', str(mine)])
		self.assertNotEqual(default, own)
		self.assertEqual(own, spaced)

	def test_unknown_subcommand(self) -> None:
		with self.assertRaises(ValueError):
			self.command(['frobnicate'])

	def test_parse_captured_run(self) -> None:
		suites = lab_kunit.parse_suites(
			(TEST_DATA / 'kunit-ident-map.json').read_text())
		self.assertEqual([s.name for s in suites], ['x86_ident_map'])
		s = suites[0]
		self.assertEqual((s.failed, s.skipped), (0, 1))
		self.assertGreater(s.passed, 30)
		self.assertEqual(s.verdict('kunit').status, 'PASS')
		self.assertEqual(s.verdict('k', allow_skip=False).status, 'FAIL')

	def test_failures_and_crashes_fail_the_suite(self) -> None:
		text = (TEST_DATA / 'kunit-ident-map-fail.json').read_text()
		s = lab_kunit.parse_suites(text)[0]
		self.assertGreater(s.failed, 0)
		self.assertEqual(s.verdict('kunit').status, 'FAIL')

	def test_missing_json_is_a_reason(self) -> None:
		suites, why = lab_kunit.read_suites(Path('/nonexistent.json'))
		self.assertEqual(suites, [])
		self.assertIn('not written', why)


class MutantTest(LabTestCase):
	def write(self, name: str, text: str) -> Path:
		path = self.root / f'{name}.patch'
		path.write_text(text)
		return path

	def test_every_shipped_mutant_parses(self) -> None:
		mutants = lab_mutants.read_mutants(lab_paths.mutant_dir(
			lab_paths.REPO_ROOT, '6.12'))
		self.assertGreaterEqual(len(mutants), 8)
		for m in mutants:
			self.assertTrue(m.killed_by, m.name)

	def test_malformed_mutant_is_named(self) -> None:
		path = self.write('bad', 'Revives: x\n\nno diff here\n')
		with self.assertRaisesRegex(LabError, 'bad.patch: malformed'):
			lab_mutants.parse_mutant(path)

	def test_mutant_applies_in_its_own_worktree(self) -> None:
		tree = self.fake.build()
		path = self.write('m1', 'Revives: a bug\nKilled-by: kunit/s\n\n'
				  'diff --git a/Makefile b/Makefile\n'
				  '--- a/Makefile\n+++ b/Makefile\n'
				  '@@ -1 +1 @@\n-VERSION = 6\n+VERSION = 5\n')
		m = lab_mutants.parse_mutant(path)
		self.assertEqual((m.name, m.revives, m.killed_by),
				 ('m1', 'a bug', ('kunit/s',)))
		wt_path = self.root / 'wt'
		wt = lab_git.prepare_worktree(tree.git, wt_path, tree.base)
		lab_mutants.apply(wt, m)
		self.assertEqual((wt_path / 'Makefile').read_text(), 'VERSION = 5\n')
		self.assertEqual((self.fake.tree / 'Makefile').read_text(),
				 'VERSION = 6\n')
		lab_git.prepare_worktree(tree.git, wt_path, tree.base)
		self.assertEqual((wt_path / 'Makefile').read_text(), 'VERSION = 6\n')
		lab_mutants.apply(wt, m)
		with self.assertRaisesRegex(LabError, 'm1 no longer applies'):
			lab_mutants.apply(wt, m)

	def test_kill_matrix_and_verdicts(self) -> None:
		m = lab_mutants.Mutant('m', Path('m.patch'), 'bug', ('kunit/a',))
		killed = lab_mutants.MutantResult(m, ('kunit/a', 'kunit/b'))
		survived = lab_mutants.MutantResult(m, ('kunit/b',))
		broken = lab_mutants.MutantResult(m, (), 'does not build')
		self.assertEqual(killed.verdict().status, 'PASS')
		self.assertEqual(survived.verdict().status, 'FAIL')
		self.assertIn('survived', survived.verdict().detail)
		self.assertEqual(broken.verdict().status, 'FAIL')
		matrix = lab_mutants.kill_matrix([killed, survived, broken])
		rows = matrix.splitlines()
		self.assertEqual(rows[0].split(), ['kunit/a', 'kunit/b'])
		self.assertEqual(rows[1].split(), ['m', 'X', 'X', 'killed'])
		self.assertEqual(rows[2].split(), ['m', '.', 'X', 'SURVIVED'])
		self.assertEqual(rows[3].split(), ['m', 'E', 'E', 'ERROR'])


class ProtocolTest(unittest.TestCase):
	def test_events_and_fields(self) -> None:
		lines = ['[    1.000000] Run /init as init process',
			 'HIBLAB hello mode=image',
			 '[    2.5] x HIBLAB pattern-check bytes=341 bad_words=0',
			 'HIBLAB']
		events = lab_protocol.parse_log(lines)
		self.assertEqual([e.name for e in events],
				 ['hello', 'pattern-check'])
		self.assertEqual(events[1].int('bytes'), 341)
		self.assertEqual(events[1].line, 3)
		self.assertEqual(lab_protocol.first(events, 'hello').get('mode'),
				 'image')
		self.assertIsNone(lab_protocol.first(events, 'done'))

	def test_splats_and_stamps(self) -> None:
		lines = ['[    3.100000] PM: hibernation: Creating image:',
			 '[    3.200000] WARNING: CPU: 1 PID: 1 at kernel/x.c:1',
			 'HIBLAB say WARNING: not a splat',
			 '[    4.000000] reboot: Power down']
		self.assertEqual(lab_protocol.splats(lines), [lines[1]])
		self.assertEqual(lab_protocol.kernel_stamps(
			lines, {'snapshot': 'Creating image', 'off': 'Power down',
				'none': 'absent'}), {'snapshot': 3.1, 'off': 4.0})


class CapturedLabRunTest(unittest.TestCase):
	"""The parsers on the logs of a real smoke cycle (TCG, 4 vCPUs)."""
	DATA = TEST_DATA / 'lab-smoke'

	def test_agent_protocol(self) -> None:
		image = lab_protocol.parse_log((self.DATA / 'boot1-image-agent.log')
					       .read_text().splitlines())
		layout = lab_cycle._layout(image, 'image')
		self.assertEqual(layout['text'] & 0xfff, 0)
		self.assertEqual(layout['page_offset_base'] % (1 << 30), 0)
		self.assertGreater(layout['text_phys'], 0)
		restore = lab_protocol.parse_log(
			(self.DATA / 'boot2-restore-agent.log').read_text().splitlines())
		self.assertNotEqual(lab_cycle._layout(restore, 'restore')['text'],
				    layout['text'])
		check = lab_protocol.first(restore, 'pattern-check')
		self.assertEqual(check.int('bad_words'), 0)
		with self.assertRaisesRegex(LabError, 'no layout report'):
			lab_cycle._layout(restore, 'image')

	def test_gdb_transcript(self) -> None:
		cpus = lab_gdb.parse_threads(
			(self.DATA / 'gdb-transcript.txt').read_text())
		self.assertEqual([c.cpu for c in cpus], [0, 1, 2, 3])
		self.assertEqual([c.state for c in cpus[1:]], ['halted'] * 3)
		# QEMU's `monitor info registers -a` through the same gdb.
		self.assertEqual([c.hlt for c in cpus], [False, True, True, True])

	def test_console_phases_and_no_splat(self) -> None:
		lines = (self.DATA / 'boot2-restore-console.log').read_text(
			).splitlines()
		stamps = lab_protocol.kernel_stamps(lines, lab_cycle.RESTORE_PHASES)
		self.assertEqual(set(stamps), set(lab_cycle.RESTORE_PHASES))
		self.assertLess(stamps['load'], stamps['loaded'])
		self.assertEqual(set(lab_protocol.kernel_stamps(
			lines, lab_cycle.RESUMED_PHASES)), set(lab_cycle.RESUMED_PHASES))
		self.assertEqual(lab_protocol.splats(lines), [])

	def test_malformed_layout_is_a_lab_error(self) -> None:
		events = [lab_protocol.parse_line('HIBLAB layout boot=image '
						  'text=0xffffffff8e631b8[')]
		with self.assertRaisesRegex(LabError, 'malformed layout'):
			lab_cycle._layout(events, 'image')


class GdbTest(unittest.TestCase):
	def test_parse_threads(self) -> None:
		text = ('  Id   Target Id                    Frame \n'
			'* 1    Thread 1.1 (CPU#0 [running]) 0xffffffff8b40e5f0 in ?? ()\n'
			'  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c6e in ?? ()\n')
		cpus = lab_gdb.parse_threads(text)
		self.assertEqual(cpus, [lab_gdb.VCpu(0, 'running', 0xffffffff8b40e5f0),
					lab_gdb.VCpu(1, 'halted', 0xffffffff8b0a3c6e)])

	HMP = ('\nCPU#0\n'
	       'RAX=0000000000000000 RBX=0000000000000001\n'
	       'RIP=ffffffff8b40e5f0 RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 '
	       'SMM=0 HLT=0\n'
	       'ES =0000 0000000000000000 00000000 00000000\n'
	       '\nCPU#1\n'
	       'RIP=ffffffff8b0a3c6e RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 '
	       'SMM=0 HLT=1\n')

	def test_hmp_hlt_flag_joins_the_thread_list(self) -> None:
		text = ('* 1    Thread 1.1 (CPU#0 [running]) 0xffffffff8b40e5f0 in ?? ()\n'
			'  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c6e in ?? ()\n'
			+ self.HMP)
		self.assertEqual(lab_gdb.parse_hmp_registers(self.HMP),
				 {0: (0xffffffff8b40e5f0, False),
				  1: (0xffffffff8b0a3c6e, True)})
		cpus = lab_gdb.parse_threads(text)
		self.assertEqual([c.hlt for c in cpus], [False, True])

	def test_firmware_halt_loop_has_an_eip_line(self) -> None:
		# maxcpus=2 on the mainline-core-online variant: CPUs 2-3 were
		# never started by the restore kernel and sit in SeaBIOS's
		# 32-bit halt loop, where HMP prints EIP= instead of RIP=.
		cpus = lab_gdb.parse_threads((TEST_DATA / 'lab-maxcpus' /
					      'gdb-transcript.txt').read_text())
		self.assertEqual([(c.state, c.hlt) for c in cpus],
				 [('running', False)] + [('halted', True)] * 3)
		self.assertEqual([c.pc for c in cpus[2:]], [0xfd09a] * 2)

	def test_hmp_dump_of_another_rip_is_not_used(self) -> None:
		text = ('  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c70 in ?? ()\n'
			+ self.HMP)
		self.assertIsNone(lab_gdb.parse_threads(text)[0].hlt)


class SymbolsTest(unittest.TestCase):
	def test_symbolize_with_slide(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'System.map'
			path.write_text('ffffffff81000000 T _text\n'
					'ffffffff81000100 t hlt_play_dead\n'
					'ffffffff81000140 T native_play_dead\n'
					'ffffffff82000000 D some_data\n')
			smap = lab_symbols.SystemMap(path)
		slide = smap.offset(0xffffffff8a000000)
		self.assertEqual(slide, 0x9000000)
		self.assertEqual(smap.name(0xffffffff8a000105, slide),
				 'hlt_play_dead+0x5')
		self.assertEqual(smap.function(0xffffffff8a000150, slide),
				 'native_play_dead')
		self.assertEqual(smap.name(0xffffffff80000000, slide), '?')


class ParkingTest(unittest.TestCase):
	"""Which vCPU positions at swsusp_arch_resume are safe."""

	def setUp(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'System.map'
			path.write_text('ffffffff81000000 T _text\n'
					'ffffffff81000100 T hlt_play_dead\n'
					'ffffffff81000140 T native_play_dead\n'
					'ffffffff81000200 T do_idle\n'
					'ffffffff81e00000 T _etext\n')
			self.smap = lab_symbols.SystemMap(path)
		self.slide = 0x1000000
		# hlt at hlt_play_dead+0x8 and native_play_dead+0x30 only.
		self.hlts = {0xffffffff81000108, 0xffffffff81000170}

	def place(self, state: str, pc: int, hlt: Optional[bool] = None):
		hlt = state == 'halted' if hlt is None else hlt
		return lab_cycle.parking_place(
			lab_gdb.VCpu(3, state, pc + self.slide, hlt), self.smap,
			self.slide, lambda f, link: link - 1 in self.hlts)

	def test_gdb_and_hmp_must_agree_on_halted(self) -> None:
		self.assertEqual(self.place('halted', 0xffffffff81000109, False),
				 (False, 'CPU3 halted (gdb) but HLT=0 (info '
				  'registers) in hlt_play_dead+0x9'))
		c = lab_gdb.VCpu(3, 'halted', 0xffffffff81000109 + self.slide)
		self.assertEqual(lab_cycle.parking_place(
			c, self.smap, self.slide, lambda f, a: True),
			(False, 'CPU3 halted (gdb) but not in `info registers -a` '
			 'at that RIP in hlt_play_dead+0x9'))

	def test_halted_after_hlt_in_a_parking_loop(self) -> None:
		self.assertEqual(self.place('halted', 0xffffffff81000109),
				 (True, 'CPU3 halted in hlt_play_dead+0x9'))
		self.assertTrue(self.place('halted', 0xffffffff81000171)[0])

	def test_mwait_loop_is_rejected_by_state_and_by_instruction(self) -> None:
		self.assertEqual(self.place('running', 0xffffffff81000160),
				 (False, 'CPU3 running in native_play_dead+0x20'))
		self.assertEqual(self.place('halted', 0xffffffff81000160),
				 (False, 'CPU3 halted in native_play_dead+0x20 '
				  '(not after a HLT)'))

	def test_other_functions_are_rejected(self) -> None:
		self.assertFalse(self.place('halted', 0xffffffff81000209)[0])

	def test_never_started_ap(self) -> None:
		c = lab_gdb.VCpu(2, 'halted', 0xfff0, True)
		self.assertEqual(lab_cycle.parking_place(
			c, self.smap, self.slide, lambda f, a: False),
			(True, 'CPU2 halted at 0xfff0 (outside the kernel): never '
			 'started by it'))
		c = lab_gdb.VCpu(2, 'running', 0xfff0, False)
		self.assertFalse(lab_cycle.parking_place(
			c, self.smap, self.slide, lambda f, a: True)[0])


class VariantTest(unittest.TestCase):
	def test_variant_carries_local_changes_and_the_patch(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			src = Path(tmp) / 'src'
			src.mkdir()
			git = lab_git.Git(src)
			env = {'GIT_AUTHOR_NAME': 't', 'GIT_AUTHOR_EMAIL': 't@t',
			       'GIT_COMMITTER_NAME': 't', 'GIT_COMMITTER_EMAIL': 't@t'}
			git.run(['init', '-q'])
			(src / 'a.c').write_text('one\ntwo\n')
			git.run(['add', 'a.c'])
			git.run(['commit', '-q', '-m', 'base'], env=env)
			(src / 'a.c').write_text('one\nTWO\n')	# uncommitted
			(src / 'new.c').write_text('new\n')	# untracked
			vdir = Path(tmp) / 'variants'
			vdir.mkdir()
			(vdir / 'v.patch').write_text(
				'Variant: v\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n'
				'+++ b/a.c\n@@ -1,2 +1,3 @@\n one\n TWO\n+three\n')
			old = lab_variants.VARIANT_DIR
			lab_variants.VARIANT_DIR = vdir
			try:
				wt = lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').read_text(),
						 'one\nTWO\nthree\n')
				self.assertEqual((wt / 'new.c').read_text(), 'new\n')
				self.assertEqual((src / 'a.c').read_text(),
						 'one\nTWO\n')
				# Preparing it again rewrites nothing (builds stay
				# incremental).
				before = (wt / 'a.c').stat().st_mtime_ns
				lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				self.assertEqual((wt / 'a.c').stat().st_mtime_ns, before)
				(src / 'a.c').write_text('other\n')
				with self.assertRaisesRegex(LabError, 'no longer applies'):
					lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'v')
				with self.assertRaisesRegex(LabError, 'no lab variant'):
					lab_variants.variant_tree(src, Path(tmp) / 'c', 'b', 'w')
			finally:
				lab_variants.VARIANT_DIR = old

	def test_every_scenario_names_existing_variants(self) -> None:
		for s in lab_scenarios.SCENARIOS.values():
			for b in (s.build, s.restore):
				if b.patch:
					lab_variants.patch_path(b.patch)
				if b.config:
					lab_guest.read_fragment(
						(lab_variants.config_path(b.config),))


class GuestTest(unittest.TestCase):
	def test_fragment_and_missing_options(self) -> None:
		want = lab_guest.read_fragment((lab_guest.FRAGMENT,))
		self.assertEqual(want['CONFIG_HIBERNATION'], 'y')
		self.assertEqual(want['CONFIG_RANDOMIZE_MEMORY'], 'y')
		config = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=8\n'
		self.assertEqual(lab_guest.missing_options(
			config, {'CONFIG_A': 'y', 'CONFIG_B': 'n', 'CONFIG_C': '4',
				 'CONFIG_D': 'y'}), ['CONFIG_C=4', 'CONFIG_D=y'])

	def test_qemu_command_line(self) -> None:
		img = lab_guest.GuestImage(Path('/b'), Path('/b/bzImage'),
					   Path('/b/i.cpio'), Path('/b/System.map'))
		s = lab_scenarios.SCENARIOS['offline-restore']
		req = lab_cycle.CycleRequest(s, img, img, Path('/r'), 'tcg')
		argv = lab_cycle.qemu_argv(req, img, Path('/r/swap.img'), 'restore',
					   'nosmt', Path('/r/c.log'), 1234)
		cmdline = argv[argv.index('-append') + 1]
		self.assertIn('hiblab.mode=restore', cmdline)
		self.assertIn('hiblab.offline_restore=3', cmdline)
		self.assertTrue(cmdline.endswith('nosmt'))
		self.assertIn('max,vendor=GenuineIntel', argv)
		self.assertEqual(argv[argv.index('-gdb') + 1], 'tcp:127.0.0.1:1234')
		self.assertEqual(argv[argv.index('-serial') + 1], 'file:/r/c.log')
		self.assertNotIn('-gdb', lab_cycle.qemu_argv(
			req, img, Path('/d'), 'image', '', Path('/c')))


class CacheLockTest(unittest.TestCase):
	def test_second_run_is_refused_naming_the_first(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			cache = Path(tmp) / 'cache'
			with lab_lock.CacheLock(cache):
				with self.assertRaisesRegex(LabError, r'in use by PID '
							    f'{os.getpid()}'):
					with lab_lock.CacheLock(cache):
						pass
			with lab_lock.CacheLock(cache):
				pass	# released on exit

	def test_unwritable_cache_is_one_clear_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			ro = Path(tmp) / 'ro'
			ro.mkdir()
			ro.chmod(0o500)
			if os.access(ro, os.W_OK):
				self.skipTest('running as a user that ignores modes')
			with self.assertRaisesRegex(LabError, 'cannot create the '
						    'cache lock'):
				with lab_lock.CacheLock(ro / 'cache'):
					pass


class RunDirTest(unittest.TestCase):
	def test_unwritable_results_is_one_clear_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = Path(tmp)
			(repo / 'results').write_text('a file, not a directory')
			with self.assertRaisesRegex(LabError, 'cannot create the '
						    'results directory'):
				lab_paths.run_dir('lab', repo)
			(repo / 'results').unlink()
			self.assertTrue(lab_paths.run_dir('lab', repo).is_dir())


class SeriesTest(unittest.TestCase):
	def test_checkpatch_summary(self) -> None:
		clean = 'total: 0 errors, 0 warnings, 0 checks, 52 lines checked\n'
		v = lab_series.checkpatch_verdict('series/checkpatch/0001', clean)
		self.assertEqual(v.status, 'PASS')
		dirty = ('ERROR:TRAILING_WHITESPACE: trailing whitespace\n'
			 '#12: FILE: a.c:3:\n'
			 'total: 1 errors, 0 warnings, 0 checks, 9 lines checked\n')
		v = lab_series.checkpatch_verdict('c', dirty)
		self.assertEqual(v.status, 'FAIL')
		self.assertIn('first: ERROR:TRAILING_WHITESPACE', v.detail)
		self.assertEqual(lab_series.checkpatch_verdict('c', '').status,
				 'FAIL')
		warned = ('WARNING:UNKNOWN_COMMIT_ID: Unknown commit id\n'
			  'total: 0 errors, 1 warnings, 0 checks, 9 lines checked\n')
		self.assertEqual(lab_series.checkpatch_verdict('c', warned).status,
				 'FAIL')
		v = lab_series.checkpatch_verdict('c', warned,
						  {'UNKNOWN_COMMIT_ID'})
		self.assertEqual(v.status, 'PASS')
		self.assertIn('justified', v.detail)
		self.assertEqual(lab_series.checkpatch_verdict(
			'c', dirty, {'TRAILING_WHITESPACE'}).status, 'FAIL')
		self.assertEqual(lab_series.justified_findings(
			'Notes:\n   UNKNOWN_COMMIT_ID in 3, 4: ids are upstream\n'
			'   EXPORT_SYMBOL in 4: why\n'),
			{3: {'UNKNOWN_COMMIT_ID'}, 4: {'UNKNOWN_COMMIT_ID',
						      'EXPORT_SYMBOL'}})

	def test_expected_recipients_from_maintainers_notes(self) -> None:
		want = lab_series.expected_recipients(lab_paths.REPO_ROOT, '6.12')
		self.assertIn('x86@kernel.org', want)
		self.assertIn('rafael@kernel.org', want)
		self.assertIn('linux-pm@vger.kernel.org', want)

	def test_cover_letter_with_editme_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			d = Path(tmp) / 'branch-overlay' / 'b'
			d.mkdir(parents=True)
			(d / 'cover-letter.txt').write_text('EDITME: title\n')
			with self.assertRaisesRegex(LabError, 'still says EDITME'):
				lab_series.read_cover(Path(tmp), 'b')
		self.assertNotIn('EDITME', lab_series.read_cover(lab_paths.REPO_ROOT,
								 '6.12'))

	def test_mail_recipients(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			m = Path(tmp) / '0001.eml'
			m.write_text('From: A <a@x>\nTo: B <b@x>,\n "C, D" <c@x>\n'
				     'Cc: l@x\nSubject: s\n\nbody\n')
			self.assertEqual(lab_series.mail_recipients(m),
					 (['b@x', 'c@x'], ['l@x']))

	def test_objects_built_from_included_sources(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			b = Path(tmp)
			(b / 'arch/x86/mm').mkdir(parents=True)
			(b / 'arch/x86/mm/init_64.o').write_text('')
			(b / 'arch/x86/mm/.init_64.o.cmd').write_text(
				'deps_arch/x86/mm/init_64.o := \\\n'
				'  /t/arch/x86/mm/init_64.c \\\n'
				'  /t/arch/x86/mm/ident_map.c \\\n')
			(b / 'arch/x86/mm/.other.o.cmd').write_text(
				'  /t/arch/x86/mm/ident_map.cpp \\\n')
			self.assertEqual(lab_series.objects_built_from(
				b, ['arch/x86/mm/ident_map.c']),
				['arch/x86/mm/init_64.o'])

	def test_w1_command_is_serial(self) -> None:
		# A parallel single-object build races in arch/x86/power/
		# (found by CI: "fixdep: error opening file").
		make = ['make', '-C', '/t', 'O=/b', '-j2']
		self.assertEqual(lab_series.w1_command(make, ['a/b.o', 'c.o']),
				 ['make', '-C', '/t', 'O=/b', '-j1', '-k', 'W=1',
				  'a/b.o', 'c.o'])

	def test_w1_warning_key_ignores_tree_and_line(self) -> None:
		a = ('/c/worktrees/series-build/arch/x86/power/hibernate.c:47: '
		     "warning: Function parameter or member 'pfn' not described")
		b = a.replace(':47:', ':52:')
		self.assertEqual(lab_series.w_key(a), lab_series.w_key(b))
		self.assertEqual(lab_series.w_key(a), 'arch/x86/power/hibernate.c: '
				 "warning: Function parameter or member 'pfn' not "
				 'described')

	def test_series_mutants_parse(self) -> None:
		for m in lab_series.read_series_mutants(lab_paths.REPO_ROOT, '6.12'):
			self.assertTrue(m.stops_at.startswith('series/'))
		with tempfile.TemporaryDirectory() as tmp:
			p = Path(tmp) / 'bad.patch'
			p.write_text('Inserts-after: 1\nStops-at: x\n\ndiff --git a b\n')
			with self.assertRaisesRegex(LabError, 'malformed'):
				lab_series.parse_series_mutant(p)


class SwapImageTest(unittest.TestCase):
	def make_disk(self, path: Path) -> None:
		page = 4096
		disk = bytearray(page * 16)
		disk[4086:4096] = b'S1SUSPEND\0'
		disk[4064:4072] = (3).to_bytes(8, 'little')	# map page
		for i, off in enumerate((5, 6, 7, 8)):		# header, data...
			disk[3 * page + 8 * i:3 * page + 8 * i + 8] = \
				off.to_bytes(8, 'little')
		disk[5 * page + 24:5 * page + 32] = \
			(0x23456789ABCDEF02).to_bytes(8, 'little')
		path.write_bytes(bytes(disk))

	def test_layout_and_each_corruption(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			disk = Path(tmp) / 'swap.img'
			self.make_disk(disk)
			image = lab_swap.read_image(disk)
			self.assertEqual((image.map_page, image.header_page,
					  image.data_pages), (3, 5, (6, 7, 8)))
			before = disk.read_bytes()
			self.assertIn('magic', lab_swap.corrupt(disk, 'header'))
			after = disk.read_bytes()
			self.assertEqual(int.from_bytes(after[5 * 4096 + 24:
							      5 * 4096 + 32],
							'little'),
					 0x23456789ABCDEF02 ^ (2 ** 64 - 1))
			self.assertEqual(sum(a != b for a, b in zip(before, after)), 8)
			lab_swap.corrupt(disk, 'data')
			self.assertNotEqual(disk.read_bytes()[7 * 4096:8 * 4096],
					    before[7 * 4096:8 * 4096])
			lab_swap.corrupt(disk, 'signature')
			with self.assertRaisesRegex(LabError, 'holds no hibernation '
						    'image'):
				lab_swap.read_image(disk)


class ScenarioTest(unittest.TestCase):
	def test_stress_is_seeded_and_never_offlines_cpu0(self) -> None:
		a = lab_scenarios.stress_scenarios(20, 7)
		self.assertEqual(a, lab_scenarios.stress_scenarios(20, 7))
		self.assertNotEqual(a, lab_scenarios.stress_scenarios(20, 8))
		self.assertEqual(len({s.name for s in a}), 20)
		for s in a:
			self.assertTrue(s.churn)
			for cpus in (s.offline_image, s.offline_restore):
				self.assertNotIn('0', cpus.split(','))
			self.assertEqual(s.online_after, s.offline_image)

	def test_cycle_summary_uses_each_runs_wall_time(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			r = Path(tmp)
			for name, sec in (('s-01', 30.0), ('s-02', 50.0)):
				(r / f'{name}-1').mkdir()
				(r / f'{name}-1' / 'verdict.json').write_text(
					f'{{"seconds": {sec}, "times": {{"a": 99}}}}')
			line = lab_lab.cycle_summary(r, ['s-01', 's-02'], [
				lab_verdict.Verdict('s-02/cpus', 'FAIL', 'x')])
		self.assertEqual(line, 'lab: 2 cycles, 1 failed (s-02); 80s in '
				 'all, per cycle min 30s / mean 40s / max 50s')

	def test_argv_carries_rounds_trace_churn_and_restore_memory(self) -> None:
		img = lab_guest.GuestImage(Path('/b'), Path('/b/bzImage'),
					   Path('/b/i.cpio'), Path('/b/System.map'))
		s = dataclasses.replace(lab_scenarios.SCENARIOS['three-cycles'],
					trace=True, churn=True,
					restore_memory_mb=1536)
		req = lab_cycle.CycleRequest(s, img, img, Path('/r'), 'tcg')
		image = lab_cycle.qemu_argv(req, img, Path('/d'), 'image', '',
					    Path('/c'))
		restore = lab_cycle.qemu_argv(req, img, Path('/d'), 'restore', '',
					      Path('/c'))
		cmdline = image[image.index('-append') + 1]
		for p in ('hiblab.cycles=3', 'hiblab.trace=1', 'hiblab.churn=1'):
			self.assertIn(p, cmdline)
		self.assertEqual(image[image.index('-m') + 1], '1024')
		self.assertEqual(restore[restore.index('-m') + 1], '1536')


class VerdictTest(unittest.TestCase):
	def test_summary_and_lines(self) -> None:
		vs = [lab_verdict.Verdict('a', 'PASS'),
		      lab_verdict.Verdict('b', 'FAIL', 'broken', 3.2),
		      lab_verdict.Verdict('c', 'SKIP', 'no kvm')]
		self.assertEqual(lab_verdict.summary(vs),
				 '1 passed, 1 failed, 1 skipped')
		self.assertEqual(vs[1].line(), 'FAIL b: broken [3s]')


if __name__ == '__main__':
	unittest.main()
