#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ccache's counters of one build, from its stats log (4.7)."""

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from hiblab.kernel import ccache

DATA = Path(__file__).parent / 'test_data'


class CcacheTest(unittest.TestCase):
	def test_a_stats_log_counts_hits_and_misses(self) -> None:
		s = ccache.parse_stats_log((DATA / 'ccache-stats.log').read_text())
		self.assertEqual(s, ccache.Stats(1, 1))
		self.assertEqual(s.line(), 'ccache: 1 hits, 1 misses (50%)')
		self.assertEqual(ccache.Stats(1210, 12).line(),
				 'ccache: 1210 hits, 12 misses (99%)')
		self.assertEqual(ccache.Stats().line(), 'ccache: nothing compiled')

	def test_a_build_counts_only_its_own_log(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			build = Path(d)
			self.assertEqual(ccache.build_stats(build), ccache.Stats())
			ccache.stats_log(build).write_text('# old.c\ncache_miss\n')
			ccache.start_stats(build)
			self.assertEqual(ccache.build_stats(build), ccache.Stats())
			env = ccache.env(Path('/c'), ccache.stats_log(build))
			self.assertEqual(env['CCACHE_STATSLOG'],
					 str(ccache.stats_log(build)))

	def test_without_ccache_the_build_is_plain(self) -> None:
		with mock.patch.object(ccache, 'available', lambda: False):
			self.assertEqual(ccache.make_args(), [])
		with mock.patch.object(ccache, 'available', lambda: True):
			self.assertEqual(ccache.make_args(), ['CC=ccache gcc'])
		env = ccache.env(Path('/c'))
		self.assertEqual(env['CCACHE_DIR'], '/c/ccache')
		self.assertEqual(env['CCACHE_MAXSIZE'], ccache.MAX_SIZE)
		self.assertNotIn('CCACHE_STATSLOG', env)


if __name__ == '__main__':
	unittest.main()
