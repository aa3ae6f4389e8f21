#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The per-commit builds judged on the captured runs' build logs, and the
helpers that pick the objects W=1 recompiles."""

import dataclasses
import tempfile
import unittest
from pathlib import Path

from hiblab import paths
from hiblab.git import Git
from hiblab.series import builds, mutants
from hiblab.testing import commit_in_tree
from hiblab.series.captures import (MADE, RUN, TOUCHED_612, build_runs, lines,
				    logged_runs, mutant, printed, subjects)
from hiblab.series.runs import Run
from hiblab.verdict import FAIL, PASS, Verdict


class BuildTest(unittest.TestCase):
	def test_every_commit_builds_as_the_run_printed(self) -> None:
		commits = list(zip(subjects(RUN / 'series.log')[:7], TOUCHED_612))
		got = [v for b in build_runs(RUN / 'build-guest.log', commits)
		       for v in builds.judge_build(b)]
		self.assertEqual(lines(got), printed('series/build/'))

	def test_moved_kernel_doc_warnings_are_not_new(self) -> None:
		# Commit 6 moves hibernate.c's upstream kernel-doc warnings
		# from lines 47 and 92 to 51 and 82.
		commits = list(zip(subjects(RUN / 'series.log')[:7], TOUCHED_612))
		b = build_runs(RUN / 'build-guest.log', commits)[5]
		self.assertIn('hibernate.c:47: warning', b.w1_parent.output)
		self.assertIn('hibernate.c:51: warning', b.w1_commit.output)
		self.assertEqual(builds.judge_w1(b.w1_parent, b.w1_commit,
						     b.touched), '')
		# Nor does a W=1 make that fails at the parent as well.
		failing = [Run(r.argv, 2, r.output, r.log)
			   for r in (b.w1_parent, b.w1_commit)]
		self.assertEqual(builds.judge_w1(*failing, b.touched), '')
		self.assertEqual(builds.judge_w1(
			b.w1_parent, failing[1], b.touched), 'W=1: make W=1 failed')

	def test_a_commit_that_does_not_build_stops_the_run(self) -> None:
		m = mutant('commit-does-not-build')
		s = subjects(RUN / 'series.log')[7:]
		# The vmlinux make of commit 2 (the sixth run) exited 2.
		b = build_runs(RUN / 'mutant-commit-does-not-build' / 'build-guest.log',
			   [(s[0], TOUCHED_612[0]), (s[1], ())], {5: 2})
		self.assertEqual(builds.judge_build(b[0])[0].status, PASS)
		got = builds.judge_build(b[1])
		self.assertEqual([(v.name, v.status) for v in got],
				 [('series/build/0002-guest', FAIL),
				  ('series', FAIL)])
		self.assertIn("error: implicit declaration of function "
			      "‘temporary_mapping_fits’", got[0].detail)
		self.assertEqual(got[1].detail, f'stopped: commit 2 '
				 f'({b[1].commit[:12]}) does not build on its own')
		self.assertEqual(mutants.judge_mutant(m, got).line(),
				 printed('series-mutant/commit-does-not-build')[0])

	def test_a_mutant_that_stops_the_run_elsewhere_says_why(self) -> None:
		# The cold run at 0985203: patch 10 rewrote the function the
		# mutant commit changed, so the branch could not be built.
		m = mutant('commit-does-not-build')
		got = [Verdict('series', FAIL, 'git cherry-pick failed in /wt: '
			       'error: could not apply 1234abc...')]
		self.assertEqual(mutants.judge_mutant(m, got).line(),
				 'FAIL series-mutant/commit-does-not-build: '
				 'expected a stop at series/build/0002-guest; '
				 'failed: series (git cherry-pick failed in /wt: '
				 'error: could not apply 1234abc...)')

	def test_a_new_w1_warning_fails(self) -> None:
		# A commit on the 6.12 topic adding a function without a
		# prototype to hibernate.c (produced/, README).
		subject = "x86/power: Copy the header's restore fields in a helper"
		b = build_runs(MADE / 'build-guest-w1.log',
			   [(subject, ('arch/x86/power/hibernate.c',))])[0]
		got = builds.judge_build(b)
		self.assertEqual(got[0].status, FAIL)
		self.assertRegex(got[0].detail, r'^"x86/power: Copy .*": W=1: '
				 r'\S*/arch/x86/power/hibernate.c:47:6: warning: '
				 r'no previous prototype for .restore_header_fields.')
		# The kernel-doc warnings it moved (51 -> 58, 82 -> 89) are
		# at the parent too: the one new warning is the prototype.
		def keys(run: Run) -> set:
			return {builds.w_key(w) for w in builds.w1_warnings(
				run.output, b.touched)}
		self.assertEqual(len(keys(b.w1_parent)), 2)
		self.assertEqual(len(keys(b.w1_commit) - keys(b.w1_parent)), 1)

	def test_make_goals_name_what_hung(self) -> None:
		b = logged_runs(RUN / 'build-guest.log')
		self.assertEqual([builds.make_goals(r.argv) for r in b[:3]],
				 ['allnoconfig', 'vmlinux',
				  'W=1 arch/x86/mm/init_64.o'])


class BuildMemoTest(unittest.TestCase):
	"""Passed builds remembered, on the captured runs' build log."""

	def captured(self) -> list:
		commits = list(zip(subjects(RUN / 'series.log')[:7], TOUCHED_612))
		return build_runs(RUN / 'build-guest.log', commits)

	def test_a_passed_build_comes_back_as_this_commit(self) -> None:
		b = self.captured()[5]
		with tempfile.TemporaryDirectory() as tmp:
			memo = builds.BuildMemo(Path(tmp))
			key = builds.memo_key('t', 'p', 'kunit', 'CONFIG_X=y\n', 'gcc')
			here = builds.BuildRun(2, 'c0ffee', 'another subject',
					       'kunit', b.touched, ())
			self.assertIsNone(memo.recall(key, here))
			memo.keep(key, b)
			got = memo.recall(key, here)
		self.assertEqual((got.step, got.commit, got.subject),
				 (2, 'c0ffee', 'another subject'))
		self.assertEqual((got.make, got.w1_parent, got.w1_commit),
				 (b.make, b.w1_parent, b.w1_commit))
		self.assertEqual(got.remembered, str(b.make[-1].log))
		v = builds.judge_build(got)
		self.assertEqual(v[0].status, PASS)
		self.assertTrue(v[0].detail.endswith(
			f' (built before, {b.make[-1].log})'), v[0].detail)

	def test_a_failed_build_is_not_remembered(self) -> None:
		b = self.captured()[5]
		broken = dataclasses.replace(b, make=(b.make[0], dataclasses.replace(
			b.make[1], rc=2, output='x.c:1: error: oops\n')))
		hung = dataclasses.replace(b, make=(b.make[0], dataclasses.replace(
			b.make[1], timed_out=True)))
		with tempfile.TemporaryDirectory() as tmp:
			memo = builds.BuildMemo(Path(tmp))
			for what in (broken, hung):
				memo.keep('k', what)
				self.assertIsNone(memo.recall('k', b))
			(Path(tmp) / 'k.json').write_text('{"step": 1}')
			self.assertIsNone(memo.recall('k', b))

	def test_the_key_covers_what_decides_the_verdict(self) -> None:
		parts = ('tree', 'parent', 'kunit', 'CONFIG_X=y\n', 'gcc 14')
		keys = {builds.memo_key(*parts)}
		for i in range(len(parts)):
			changed = list(parts)
			changed[i] += '!'
			keys.add(builds.memo_key(*changed))
		self.assertEqual(len(keys), len(parts) + 1)


class W1Test(unittest.TestCase):
	"""What W=1 recompiles, and how its warnings compare."""

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
			self.assertEqual(builds.objects_built_from(
				b, ['arch/x86/mm/ident_map.c']),
				['arch/x86/mm/init_64.o'])

	def test_commits_far_from_the_topic_build_beside_it(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			t, b = Path(tmp) / 'tree', Path(tmp) / 'build'
			t.mkdir()
			git = Git(t)
			git.run(['init', '-q', '-b', 'base'])

			def commit(smp: str, ident: str) -> str:
				(t / 'smp.h').write_text(smp)
				(t / 'ident_map.c').write_text(ident)
				return commit_in_tree(git, 'c', '2026-01-01T00:00')
			commit('base', 'base')
			git.run(['checkout', '-q', '-b', 'topic'])
			commit('kick', 'fix')
			git.run(['checkout', '-q', 'base'])
			without_kick = commit('base', 'fix')
			kick_only = commit('kick', 'base')
			self.assertEqual(builds.series_variant(git, without_kick, b),
					 paths.CHECK_VARIANT, 'nothing built yet')
			# Two objects include smp.h, one ident_map.c.
			for obj, src in (('a', 'smp.h'), ('b', 'smp.h'),
					 ('c', 'ident_map.c')):
				(b / 'x').mkdir(parents=True, exist_ok=True)
				(b / 'x' / f'{obj}.o').write_text('')
				(b / 'x' / f'.{obj}.o.cmd').write_text(
					f'deps := \\\n  /t/{src} \\\n')
			self.assertEqual(builds.series_variant(git, without_kick, b),
					 paths.SERIES_VARIANT)
			self.assertEqual(builds.series_variant(git, kick_only, b),
					 paths.CHECK_VARIANT)
			self.assertEqual(builds.series_variant(git, 'topic', b),
					 paths.CHECK_VARIANT)

	def test_w1_command_is_serial(self) -> None:
		# A parallel single-object build races in arch/x86/power/
		# (found by CI: "fixdep: error opening file").
		make = ['make', '-C', '/t', 'O=/b', '-j2']
		self.assertEqual(builds.w1_command(make, ['a/b.o', 'c.o']),
				 ['make', '-C', '/t', 'O=/b', '-j1', '-k', 'W=1',
				  'a/b.o', 'c.o'])

	def test_w1_warning_key_ignores_tree_and_line(self) -> None:
		a = ('/c/worktrees/series-build/arch/x86/power/hibernate.c:47: '
		     "warning: Function parameter or member 'pfn' not described")
		b = a.replace(':47:', ':52:')
		self.assertEqual(builds.w_key(a), builds.w_key(b))
		self.assertEqual(builds.w_key(a), 'arch/x86/power/hibernate.c: '
				 "warning: Function parameter or member 'pfn' not "
				 'described')


if __name__ == '__main__':
	unittest.main()
