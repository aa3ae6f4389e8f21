#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The gauntlet: mutant files, verdicts and the kill matrix."""

import re
import subprocess
import tempfile
import unittest
from pathlib import Path

from hiblab import git, paths
from hiblab.base import overlay, pins
from hiblab.errors import LabError
from hiblab.gauntlet import mutants, run as gauntlet
from hiblab.kernel import kunit
from hiblab.testing import LabTestCase


DATA = Path(__file__).resolve().parent / 'test_data'
SERIES_DATA = Path(__file__).resolve().parents[1] / 'series' / 'test_data'


class MutantTest(LabTestCase):
	def write(self, name: str, text: str) -> Path:
		path = self.root / f'{name}.patch'
		path.write_text(text)
		return path

	# Besides the files a base's series touches, a mutant may revive a
	# bug anywhere in the hibernation code the static and lab checks
	# judge (README): the seed mutants live in hibernate_64.c,
	# hibernate_asm_64.S and kernel/power/hibernate.c, which the series
	# leaves alone; and in pti.c, whose copy of the identity map's
	# top-level entries x86_ident_map's PTI case judges.  Anything else
	# is a mutant of the wrong tree.
	CODE_UNDER_TEST = ('arch/x86/power/', 'kernel/power/',
			   'arch/x86/mm/pti.c')

	@staticmethod
	def series_paths(base: str) -> frozenset:
		"""Every path the base's series (branch-overlay/<base>/) touches."""
		return frozenset(c.path for s in overlay.read_steps(
			paths.overlay_dir(paths.REPO_ROOT, base))
			for c in s.changes)

	def mutant_problems(self, m: mutants.Mutant,
			    series: frozenset) -> list:
		"""What parse_mutant() lets through: a diff git cannot read
		(hand-edited hunk counts), one that changes only whitespace or
		nothing, files outside the series and the hibernation code, an
		empty or repeated Killed-by:, a blank Revives:."""
		problems = []
		with tempfile.TemporaryDirectory() as tmp:	# outside any repo
			proc = subprocess.run(['git', 'apply', '--numstat',
					       str(m.path.resolve())], cwd=tmp,
					      capture_output=True, text=True,
					      check=False)
		if proc.returncode != 0:
			problems.append(f'git apply cannot read it: '
					f'{proc.stderr.strip()}')
		touched = [row.split('\t')[2] for row in proc.stdout.splitlines()]
		problems += [f'touches {p}, outside its series and the '
			     'hibernation code' for p in touched
			     if p not in series and
			     not p.startswith(self.CODE_UNDER_TEST)]
		# The text before and after, whitespace dropped: equal if the
		# diff changes nothing a compiler sees (a moved line counts).
		before, after = [], []
		for hunk in m.path.read_text().split('\n@@')[1:]:
			for line in hunk.split('\ndiff --git ')[0].splitlines()[1:]:
				word = ''.join(line[1:].split())
				if line[:1] in ' -':
					before.append(word)
				if line[:1] in ' +':
					after.append(word)
		if before == after:
			problems.append('its diff changes no code (whitespace at '
					'most)')
		if not m.killed_by or len(set(m.killed_by)) != len(m.killed_by):
			problems.append(f'Killed-by: {" ".join(m.killed_by)!r} '
					'must name checks, each once')
		if not m.revives.strip():
			problems.append('Revives: is blank')
		return problems

	def test_every_shipped_mutant_parses(self) -> None:
		bases = pins.read_bases(paths.base_pin_file())
		for base in bases:
			shipped = mutants.read_mutants(paths.mutant_dir(
				paths.REPO_ROOT, base))
			self.assertGreaterEqual(len(shipped), 8, base)
			series = self.series_paths(base)
			self.assertTrue(series, base)
			for m in shipped:
				with self.subTest(mutant=f'{base}/{m.name}'):
					self.assertEqual(self.mutant_problems(m, series),
							 [])

	def test_broken_copies_of_a_shipped_mutant_are_caught(self) -> None:
		"""Each assertion above can fail: the parser accepts every one
		of these copies, the shipped-mutant check does not."""
		good = paths.mutant_dir(paths.REPO_ROOT, '6.12') / \
			'header-cr3-pcid-kept.patch'
		text = good.read_text()
		series = self.series_paths('6.12')
		broken = {
			'git apply cannot read it: .*corrupt patch':
				re.sub(r'@@ -(\d+),7 \+(\d+),7 @@',
				       r'@@ -\1,9 +\2,7 @@', text, count=1),
			'changes no code': text.replace(
				'+\trdr->cr3 = cr3;',
				'+\trdr->cr3  =  cr3 & ~CR3_PCID_MASK;'),
			'touches drivers/x.c, outside its series': text.replace(
				'arch/x86/power/hibernate.c', 'drivers/x.c'),
			"Killed-by: 'kunit/a kunit/a' must name checks, each once":
				text.replace('Killed-by: kunit/x86_hibernate_header',
					     'Killed-by: kunit/a kunit/a'),
			"Killed-by: '' must name checks":
				text.replace('Killed-by: kunit/x86_hibernate_header',
					     'Killed-by:\t'),
			'Revives: is blank': text.replace(
				text.split('\n', 1)[0], 'Revives:\t'),
		}
		self.assertEqual(self.mutant_problems(
			mutants.parse_mutant(good), series), [])
		for why, bad in broken.items():
			self.assertNotEqual(bad, text, why)
			m = mutants.parse_mutant(self.write('broken', bad))
			self.assertRegex('\n'.join(self.mutant_problems(m, series)),
					 why)

	def test_other_kunit_boots_only_where_a_mutant_names_them(self
								) -> None:
		shipped = {m.name: m for m in mutants.read_mutants(
			paths.mutant_dir(paths.REPO_ROOT, '6.12'))}

		def prefixes(names):
			return [b.prefix for b in gauntlet.boots_needed(
				[shipped[n] for n in names])]
		self.assertEqual(prefixes(['ident-map-5level-link-after-fill']),
				 ['kunit', 'kunit-la57'])
		self.assertEqual(prefixes(['pti-user-copy-ignores-noptishadow']),
				 ['kunit', 'kunit-la57', 'kunit-pti'])
		self.assertEqual(prefixes(['header-cr3-pcid-kept']), ['kunit'])
		# The gauntlet's baseline boots each that any mutant needs.
		self.assertEqual(prefixes(list(shipped)),
				 [b.prefix for b in kunit.BOOTS])

	def test_malformed_mutant_is_named(self) -> None:
		path = self.write('bad', 'Revives: x\n\nno diff here\n')
		with self.assertRaisesRegex(LabError, 'bad.patch: malformed'):
			mutants.parse_mutant(path)

	def test_mutant_applies_in_its_own_worktree(self) -> None:
		tree = self.fake.build()
		path = self.write('m1', 'Revives: a bug\nKilled-by: kunit/s\n\n'
				  'diff --git a/Makefile b/Makefile\n'
				  '--- a/Makefile\n+++ b/Makefile\n'
				  '@@ -1 +1 @@\n-VERSION = 6\n+VERSION = 5\n')
		m = mutants.parse_mutant(path)
		self.assertEqual((m.name, m.revives, m.killed_by),
				 ('m1', 'a bug', ('kunit/s',)))
		wt_path = self.root / 'wt'
		wt = git.prepare_worktree(tree.git, wt_path, tree.base)
		mutants.apply(wt, m)
		self.assertEqual((wt_path / 'Makefile').read_text(), 'VERSION = 5\n')
		self.assertEqual((self.fake.tree / 'Makefile').read_text(),
				 'VERSION = 6\n')
		git.prepare_worktree(tree.git, wt_path, tree.base)
		self.assertEqual((wt_path / 'Makefile').read_text(), 'VERSION = 6\n')
		mutants.apply(wt, m)
		with self.assertRaisesRegex(LabError, 'm1 no longer applies'):
			mutants.apply(wt, m)

	def test_a_mutant_that_no_longer_applies_is_named_early(self) -> None:
		tree = self.fake.build()
		diff = ('diff --git a/Makefile b/Makefile\n'
			'--- a/Makefile\n+++ b/Makefile\n'
			'@@ -1 +1 @@\n-VERSION = {}\n+VERSION = 5\n')
		good = mutants.parse_mutant(self.write(
			'good', 'Revives: a bug\nKilled-by: kunit/s\n\n' +
			diff.format(6)))
		stale = mutants.parse_mutant(self.write(
			'stale', 'Revives: a bug\nKilled-by: kunit/s\n\n' +
			diff.format(7)))
		self.assertEqual(mutants.not_applying(
			tree.git, tree.base, [good, stale], self.root / 'index'),
			['stale'])
		# The tree the user works in is neither changed nor staged.
		self.assertEqual((self.fake.tree / 'Makefile').read_text(),
				 'VERSION = 6\n')
		self.assertEqual(tree.git.dirty_paths(), [])

	def test_a_build_kill_needs_its_named_error(self) -> None:
		shipped = paths.mutant_dir(paths.REPO_ROOT, '6.12') / \
			'header-field-added-same-magic.patch'
		m = mutants.parse_mutant(shipped)
		self.assertEqual(m.killed_by, ('build',))
		# The gauntlet's build of this mutant (test_data/mutants/README).
		log = (DATA / 'mutants' / 'header-field-added-same-magic' /
		       'build.log').read_text()
		v = mutants.judge_build_failure(m, log)
		self.assertEqual((v.name, v.status), ('build', 'FAIL'))
		self.assertIn('static assertion failed: "sizeof(struct '
			      'restore_data_record) == ', v.detail)
		self.assertTrue(mutants.MutantResult(m, (v.name,)).killed)
		# Another compile error is not this kill: a real failed build
		# of the series gauntlet (implicit declaration).
		other = (SERIES_DATA / '6.12' / 'mutant-commit-does-not-build'
			 / 'build-guest.log').read_text()
		self.assertEqual(mutants.judge_build_failure(m, other).status,
				 'PASS')
		# Killed-by: build and Build-error: go together; a bad regex is
		# named.
		text = shipped.read_text()
		for why, bad in {
			'go together': re.sub(r'^Build-error:.*\n', '', text,
					      flags=re.M),
			'go together ': text.replace('Killed-by: build',
						     'Killed-by: kunit/x86_hibernate_header'),
			'not a regex': re.sub(r'^Build-error:.*$',
					      'Build-error: (unclosed', text,
					      flags=re.M),
		}.items():
			self.assertNotEqual(bad, text, why)
			with self.assertRaisesRegex(LabError, why.strip()):
				mutants.parse_mutant(self.write('broken', bad))

	def test_kill_matrix_and_verdicts(self) -> None:
		m = mutants.Mutant('m', Path('m.patch'), 'bug', ('kunit/a',))
		killed = mutants.MutantResult(m, ('kunit/a', 'kunit/b'))
		survived = mutants.MutantResult(m, ('kunit/b',))
		broken = mutants.MutantResult(m, (), 'does not build')
		self.assertEqual(killed.verdict().status, 'PASS')
		self.assertEqual(survived.verdict().status, 'FAIL')
		self.assertIn('survived', survived.verdict().detail)
		self.assertEqual(broken.verdict().status, 'FAIL')
		matrix = mutants.kill_matrix([killed, survived, broken])
		rows = matrix.splitlines()
		self.assertEqual(rows[0].split(), ['kunit/a', 'kunit/b'])
		self.assertEqual(rows[1].split(), ['m', 'X', 'X', 'killed'])
		self.assertEqual(rows[2].split(), ['m', '.', 'X', 'SURVIVED'])
		self.assertEqual(rows[3].split(), ['m', 'E', 'E', 'ERROR'])


if __name__ == '__main__':
	unittest.main()
