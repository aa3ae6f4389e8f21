#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ccache's counters, as `ccache --print-stats` prints them (4.7)."""

import unittest
from pathlib import Path
from unittest import mock

from hiblab.kernel import ccache

STATS = ('autoconf_test\t0\ncache_miss\t12\ncache_size_kibibyte\t40\n'
	 'direct_cache_hit\t1200\ndirect_cache_miss\t14\n'
	 'preprocessed_cache_hit\t10\npreprocessed_cache_miss\t12\n'
	 'stats_updated_timestamp\t1765000000\n')


class CcacheTest(unittest.TestCase):
	def test_hits_and_misses(self) -> None:
		s = ccache.parse_stats(STATS)
		self.assertEqual(s, ccache.Stats(1210, 12))
		self.assertEqual(s.line(), 'ccache: 1210 hits, 12 misses (99%)')
		self.assertEqual((s - ccache.Stats(1000, 2)).line(),
				 'ccache: 210 hits, 10 misses (95%)')
		self.assertEqual(ccache.Stats().line(), 'ccache: nothing compiled')

	def test_without_ccache_the_build_is_plain(self) -> None:
		with mock.patch.object(ccache, 'available', lambda: False):
			self.assertEqual(ccache.make_args(), [])
			self.assertEqual(ccache.stats(Path('/c')),
					 ccache.Stats())
		with mock.patch.object(ccache, 'available', lambda: True):
			self.assertEqual(ccache.make_args(), ['CC=ccache gcc'])
		env = ccache.env(Path('/c'))
		self.assertEqual(env['CCACHE_DIR'], '/c/ccache')
		self.assertEqual(env['CCACHE_MAXSIZE'], ccache.MAX_SIZE)


if __name__ == '__main__':
	unittest.main()
