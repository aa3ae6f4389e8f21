#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kunit_tool's JSON, the build directories, the verdicts."""

import os
import subprocess
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from hiblab.errors import LabError
from hiblab.kernel import ccache, kunit

TEST_DATA = Path(__file__).resolve().parent / 'test_data'


class KunitTest(unittest.TestCase):
	def command(self, args: list) -> kunit.KunitCommand:
		return kunit.kunit_command(Path('/t'), Path('/c'), '6.12',
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
		self.assertEqual(cmd.build_dir, kunit.default_build_dir(
			Path('/c'), '6.12', ['--arch=x86_64']))
		# Each base builds in its own directory.
		self.assertNotEqual(cmd.build_dir, kunit.default_build_dir(
			Path('/c'), '7.3', ['--arch=x86_64']))

	def test_prepare_creates_the_parent_only(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			cmd = kunit.kunit_command(Path('/t'), Path(tmp) / 'new-cache',
						      '6.12', Path('/r'), ['run'], 2)
			cmd.prepare()
			self.assertTrue(cmd.build_dir.parent.is_dir())
			self.assertFalse(cmd.build_dir.exists())

	def test_user_options_win_and_pass_through(self) -> None:
		with unittest.mock.patch.object(ccache, 'available',
						lambda: False):
			cmd = self.command(['run', '--kunitconfig=x', '--build_dir=b',
					    '--jobs=7', '--raw_output',
					    'x86_ident_map'])
		self.assertEqual(cmd.argv[2:], ['--kunitconfig=x', '--build_dir=b',
					       '--jobs=7', '--raw_output',
					       'x86_ident_map'])

	def test_builds_compile_through_ccache_unless_cc_is_given(self) -> None:
		with unittest.mock.patch.object(ccache, 'available', lambda: True):
			run = self.command(['run', '--arch=x86_64'])
			mine = self.command(['run', '--make_options', 'CC=clang'])
			exec_ = self.command(['exec', '--arch=x86_64'])
		self.assertIn('--make_options=CC=ccache gcc', run.argv)
		self.assertEqual([a for a in mine.argv if 'CC=' in a],
				 ['CC=clang'])
		self.assertNotIn('--make_options=CC=ccache gcc', exec_.argv)

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
			default = kunit.build_variant(kunit.kunitconfigs(),
							  ['--arch=x86_64'])
			own = kunit.build_variant(kunit.kunitconfigs(),
						      ['--arch=x86_64',
						       f'--kunitconfig={mine}'])
			spaced = kunit.build_variant(kunit.kunitconfigs(),
							 ['--arch', 'x86_64',
							  '--kunitconfig', str(mine)])
		self.assertNotEqual(default, own)
		self.assertEqual(own, spaced)

	def test_unknown_subcommand(self) -> None:
		# Was a ValueError: a traceback, not a line.
		with self.assertRaisesRegex(LabError, 'not a kunit_tool '
					    'subcommand: frobnicate: start with '
					    'one of run, '):
			self.command(['frobnicate'])
		with self.assertRaisesRegex(LabError, r'subcommand: \(none\)'):
			self.command([])

	def test_parse_captured_run(self) -> None:
		suites = kunit.parse_suites(
			(TEST_DATA / 'kunit-ident-map.json').read_text())
		self.assertEqual([s.name for s in suites], ['x86_ident_map'])
		s = suites[0]
		self.assertEqual((s.failed, s.skipped), (0, 1))
		self.assertGreater(s.passed, 30)
		self.assertEqual(s.verdict('kunit').status, 'PASS')
		# A boot that must run the skipped case fails and names it.
		self.assertEqual(s.skipped_cases, ('ident_map_five_level',))
		self.assertEqual(s.verdict('k', frozenset()).status, 'FAIL')
		self.assertIn('ident_map_five_level must run',
			      s.verdict('k', frozenset()).detail)
		self.assertEqual(s.verdict('k', frozenset({
			'x86_ident_map.ident_map_five_level'})).status, 'PASS')
		# Named with its suite: the same case name elsewhere is not it.
		self.assertEqual(s.verdict('k', frozenset({
			'other_suite.ident_map_five_level'})).status, 'FAIL')

	def test_failures_and_crashes_fail_the_suite(self) -> None:
		text = (TEST_DATA / 'kunit-ident-map-fail.json').read_text()
		s = kunit.parse_suites(text)[0]
		self.assertGreater(s.failed, 0)
		self.assertEqual(s.verdict('kunit').status, 'FAIL')

	def test_missing_json_is_a_reason(self) -> None:
		suites, why = kunit.read_suites(Path('/nonexistent.json'))
		self.assertEqual(suites, [])
		self.assertIn('not written', why)

	def test_unfinished_json_is_a_reason(self) -> None:
		# kunit_tool stopped mid-write: json.loads raised a ValueError
		# (JSONDecodeError) that ended make test with a traceback.
		text = (TEST_DATA / 'kunit-ident-map.json').read_text()
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'kunit.json'
			for bad in (text[:len(text) // 2].encode(), b'[]',
				    b'{"sub_groups": [{"test_cases": []}]}',
				    b'\xff\xfe'):
				path.write_bytes(bad)
				with self.assertRaisesRegex(LabError, 'is not kunit_tool '
							    'JSON .*run the suites '
							    'again'):
					kunit.parse_suites(bad.decode(errors='replace'))
				suites, why = kunit.read_suites(path)
				self.assertEqual(suites, [])
				self.assertRegex(why, f'^{path} is not kunit_tool JSON')
				self.assertNotIn('\n', why)

	def test_run_with_unfinished_json_is_a_fail_verdict(self) -> None:
		# The same through run_kunit, as make test and the gauntlet
		# call it: a fake kunit_tool writes half a JSON file.
		with tempfile.TemporaryDirectory() as tmp:
			tree = Path(tmp) / 'tree'
			tool = tree / 'tools/testing/kunit/kunit.py'
			tool.parent.mkdir(parents=True)
			tool.write_text(
				'import sys\n'
				'path = [a[7:] for a in sys.argv if a.startswith("--json=")][0]\n'
				'open(path, "w").write(\'{"sub_groups": [{"name": "x", \')\n')
			rc, verdicts = kunit.run_kunit(kunit.KunitRun(
				tree, Path(tmp) / 'cache', '6.12', Path(tmp) / 'r',
				Path(tmp) / 'kunit.log', ['exec', '--arch=x86_64'], 1))
		self.assertEqual(rc, 0)
		self.assertEqual([(v.name, v.status) for v in verdicts],
				 [('kunit', 'FAIL')])
		self.assertIn('is not kunit_tool JSON', verdicts[0].detail)

	def test_kunit_py_reads_a_run_as_make_test_does(self) -> None:
		# ./tools/kunit.py streams kunit_tool to the terminal, so there is
		# no log to quote; the verdicts are the same function's.
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'kunit.json'
			path.write_text((TEST_DATA / 'kunit-ident-map.json').read_text())
			ok = kunit.kunit_verdicts(0, path)
			self.assertEqual([v.status for v in ok], ['PASS'])
			self.assertEqual(kunit.kunit_verdicts(1, path)[-1].detail,
					 'kunit_tool exit 1')
			path.write_text('{"sub_groups": [')
			bad = kunit.kunit_verdicts(0, path)
			self.assertEqual([v.name for v in bad], ['kunit'])
			self.assertNotIn('(see', bad[0].detail)


class TcgOnlyTest(unittest.TestCase):
	# kunit_tool 7.3's QEMU command line (kunit_kernel.py), shortened.
	ARGV = ['-nodefaults', '-m', '1024', '-no-reboot', '-accel', 'kvm',
		'-accel', 'hvf', '-accel', 'tcg', '-serial', 'stdio']

	def test_the_wrapper_keeps_only_tcg(self) -> None:
		env = dict(os.environ, HIBLAB_REAL_QEMU='/bin/echo')
		out = subprocess.run([str(kunit.TCG_ONLY / 'qemu-system-x86_64')] +
				     self.ARGV, env=env, stdout=subprocess.PIPE,
				     text=True, check=True).stdout
		self.assertEqual(out.split(), ['-nodefaults', '-m', '1024',
					       '-no-reboot', '-accel', 'tcg',
					       '-serial', 'stdio'])

	def test_tcg_puts_the_wrapper_first_in_path(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			qemu = Path(d) / 'qemu-system-x86_64'
			qemu.write_text('#!/bin/sh\n')
			qemu.chmod(0o755)
			env = {'PATH': d}
			got = kunit.accel_env(env, 'tcg')
			self.assertEqual(got['PATH'], f'{kunit.TCG_ONLY}:{d}')
			self.assertEqual(got['HIBLAB_REAL_QEMU'], str(qemu))
			self.assertEqual(kunit.accel_env(env, 'kvm'), env)
			self.assertEqual(kunit.accel_env({'PATH': '/nonexistent'},
							 'tcg'),
					 {'PATH': '/nonexistent'})


if __name__ == '__main__':
	unittest.main()
