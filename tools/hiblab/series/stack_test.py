#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A series applied with git am on the base and its prerequisites only."""

import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.series import catalog, stack

ENV = {'GIT_AUTHOR_NAME': 'A', 'GIT_AUTHOR_EMAIL': 'a@kernel.org',
       'GIT_COMMITTER_NAME': 'A', 'GIT_COMMITTER_EMAIL': 'a@kernel.org',
       'GIT_AUTHOR_DATE': '2026-01-01T00:00:00Z',
       'GIT_COMMITTER_DATE': '2026-01-01T00:00:00Z'}


def series(name: str, steps, requires=()) -> catalog.SeriesDef:
	return catalog.SeriesDef(name, Path(f'{name}.series'), 'PATCH', 1,
				 't', tuple(steps), tuple(requires))


class StackTest(unittest.TestCase):
	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.root = Path(tmp.name)
		self.git = Git(self.root / 'tree')
		self.git.worktree.mkdir()
		self.git.run(['init', '-q'])
		self.base = self.commit({'a.c': 'one\ntwo\nthree\n',
					 'b.c': 'x\n'}, 'base')
		# Step 1 and 3 change a.c, 3 on top of 1; step 2 changes b.c.
		self.commit({'a.c': 'one\nTWO\nthree\n'}, 'step 1')
		self.commit({'b.c': 'y\n'}, 'step 2')
		self.topic = self.commit({'a.c': 'one\nTWO\nTHREE\n'}, 'step 3')

	def commit(self, files: dict, msg: str) -> str:
		for name, text in files.items():
			(self.git.worktree / name).write_text(text)
		self.git.run(['add', '.'])
		self.git.run(['commit', '-q', '-m', msg], env=ENV)
		return self.git.text(['rev-parse', 'HEAD'])

	def build(self, s, all_series, requires=None) -> stack.Stack:
		return stack.build_stack(self.git, self.root / 'cache', 'b',
					 self.base, self.topic, s, all_series,
					 requires)

	def test_a_series_on_its_prerequisites(self) -> None:
		one, two = series('one', (1,)), series('two', (2,))
		three = series('three', (3,), ('one',))
		st = self.build(three, [one, two, three])
		self.assertEqual(st.prerequisites, ('one',))
		self.assertEqual(len(st.prerequisite_ids), 1)
		wt = Git(self.root / 'cache' / 'worktrees' / 'series-am-b')
		self.assertEqual((wt.worktree / 'a.c').read_text(),
				 'one\nTWO\nTHREE\n')
		self.assertEqual((wt.worktree / 'b.c').read_text(), 'x\n')
		self.assertEqual(self.git.text(['log', '-1', '--format=%s',
						st.fork]), 'step 1')
		self.assertEqual(self.git.text(['rev-list', '--count',
						f'{st.fork}..{st.tip}']), '1')
		# The same patches give the same commits.
		self.assertEqual(self.build(three, [one, two, three]), st)

	def test_an_undeclared_prerequisite_does_not_apply(self) -> None:
		one, two = series('one', (1,)), series('two', (2,))
		three = series('three', (3,), ('one',))
		with self.assertRaisesRegex(LabError, r'^step 0003 of three on the '
					    r'base does not apply: .*a\.c'):
			self.build(three, [one, two, three], requires=())

	def test_a_git_am_a_killed_run_left_does_not_stop_the_next(self) -> None:
		one, two = series('one', (1,)), series('two', (2,))
		three = series('three', (3,), ('one',))
		st = self.build(three, [one, two, three])
		# A run killed in the middle of git am leaves it in progress.
		wt = Git(self.root / 'cache' / 'worktrees' / 'series-am-b')
		patch = self.git.run(['format-patch', '--stdout', '-1',
				      self.topic])
		wt.run(['checkout', '-q', '--detach', self.base])
		self.assertNotEqual(wt.attempt(['am', '-q'], env=ENV,
					       stdin=patch).returncode, 0)
		self.assertEqual(self.build(three, [one, two, three]), st)


if __name__ == '__main__':
	unittest.main()
