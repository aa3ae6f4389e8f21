#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The disk-room check: its judge, and make test stopping on it."""

import contextlib
import io
import json
import os
from pathlib import Path
from unittest import mock

from hiblab.checks import room, run
from hiblab.checks.context import TestRequest
from hiblab.testing import LabTestCase

GIB = room.GIB


class JudgeRoomTest(LabTestCase):
	def test_a_cold_run_on_a_nearly_full_disk_is_refused(self) -> None:
		# CI's machine when the series worktrees hit ENOSPC: 4.9 GiB
		# free, the cache not yet holding the trees of a cold run.
		v = room.judge_room(Path('/c'), room.cold_size(['7.3', '6.12']),
				    0, int(4.9 * GIB))
		self.assertEqual(v.status, 'FAIL')
		self.assertIn('4.9 GiB free under /c', v.detail)
		self.assertIn('HIBLAB_CACHE_DIR', v.detail)

	def test_a_full_cache_needs_only_the_margin(self) -> None:
		cold = room.cold_size(['7.3'])
		v = room.judge_room(Path('/c'), cold, cold + GIB,
				    int((room.MARGIN_GIB + 0.1) * GIB))
		self.assertEqual(v.status, 'PASS', v.detail)
		self.assertEqual(room.judge_room(Path('/c'), cold, cold + GIB,
						 GIB).status, 'FAIL')

	def test_what_the_cache_holds_counts(self) -> None:
		cold = room.cold_size(['7.3', '6.12'])
		need = cold - 5 * GIB + int(room.MARGIN_GIB * GIB)
		self.assertEqual(room.judge_room(Path('/c'), cold, 5 * GIB,
						 need).status, 'PASS')
		self.assertEqual(room.judge_room(Path('/c'), cold, 5 * GIB,
						 need - 1).status, 'FAIL')

	def test_an_unknown_base_counts_as_the_largest(self) -> None:
		self.assertEqual(room.cold_size(['other']),
				 room.cold_size([max(room.COLD_GIB,
						     key=room.COLD_GIB.get)]))

	def test_used_and_free_of_a_cache_not_made_yet(self) -> None:
		cache = self.root / 'not' / 'yet'
		self.assertEqual(room.used(room.held_paths(cache, ['7.3'])), 0)
		self.assertGreater(room.free(cache), 0)
		(cache / 'ccache').mkdir(parents=True)
		# Random bytes: a compressing filesystem keeps them whole.
		(cache / 'ccache' / 'f').write_bytes(os.urandom(1 << 20))
		self.assertGreaterEqual(room.used(room.held_paths(cache, ['7.3'])),
					1 << 20)


class HeldPathsTest(LabTestCase):
	def test_only_the_run_s_bases_and_what_they_share(self) -> None:
		cache = self.root / 'c'
		for d in ('linux-7.3', 'linux-6.12', 'build', 'worktrees/check-7.3',
			  'worktrees/series-am-6.12', 'worktrees/series-scratch-7.3'):
			(cache / d).mkdir(parents=True)
		held = [p.relative_to(cache).as_posix()
			for p in room.held_paths(cache, ['6.12'])]
		self.assertEqual(held, ['build', 'linux-6.12',
					'worktrees/series-am-6.12'])


class RetireTest(LabTestCase):
	def test_the_old_layout_s_worktrees_go_the_others_stay(self) -> None:
		tree = self.fake.build()
		cache = self.fake.cache
		keep = ['check-fake', 'series-am-fake', 'series-scratch-fake',
			'series-ident-map-fake']
		old = ['series-stack-fake', 'series-ident-map-rehearsal-fake',
		       'series-pkru-mutant-fake']
		for name in keep + old:
			tree.git.run(['worktree', 'add', '-q', '--detach',
				      str(cache / 'worktrees' / name), 'HEAD'])
		self.assertEqual(sorted(room.retire_worktrees(cache, ['fake'])),
				 sorted(old))
		self.assertEqual(sorted(p.name for p in
					(cache / 'worktrees').iterdir()),
				 sorted(keep))
		listed = tree.git.text(['worktree', 'list'])
		self.assertFalse([n for n in old if n in listed], listed)
		self.assertEqual(room.retire_worktrees(cache, ['fake']), [])


class RunStopsTest(LabTestCase):
	def test_make_test_stops_before_the_first_check(self) -> None:
		req = TestRequest(self.fake.repo, self.fake.cache, [], 1)
		out = io.StringIO()
		with mock.patch.object(room, 'free', return_value=GIB), \
		     contextlib.redirect_stdout(out):
			rc = run.run_all(req)
		self.assertEqual(rc, 1)
		lines = out.getvalue().splitlines()
		self.assertTrue(lines[1].startswith('FAIL disk-room: 1.0 GiB '
						    'free under'), lines)
		self.assertEqual(lines[-1], '0 passed, 1 failed')
		self.assertFalse([l for l in lines if 'running' in l])
		data = json.loads(next((self.fake.repo / 'results').glob(
			'test-*/verdicts.json')).read_text())
		self.assertEqual(data['summary'], '0 passed, 1 failed')

	def test_a_run_of_checks_that_need_no_room_skips_it(self) -> None:
		req = TestRequest(self.fake.repo, self.fake.cache,
				  ['host-unit-tests'], 1, bases=['fake'])
		with mock.patch.object(room, 'free', return_value=0), \
		     mock.patch.object(run, '_run_check', return_value=[]), \
		     contextlib.redirect_stdout(io.StringIO()) as out:
			rc = run.run_all(req)
		self.assertEqual(rc, 0, out.getvalue())
		self.assertNotIn('disk-room', out.getvalue())
