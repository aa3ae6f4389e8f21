#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Symbolizing a KASLR'd address."""

import unittest

from hiblab.kernel import symbols


class SymbolsTest(unittest.TestCase):
	def test_symbolize_with_slide(self) -> None:
		smap = symbols.SystemMap.from_text(
			'ffffffff81000000 T _text\n'
			'ffffffff81000100 t hlt_play_dead\n'
			'ffffffff81000140 T native_play_dead\n'
			'ffffffff82000000 D some_data\n')
		slide = smap.offset(0xffffffff8a000000)
		self.assertEqual(slide, 0x9000000)
		self.assertEqual(smap.name(0xffffffff8a000105, slide),
				 'hlt_play_dead+0x5')
		self.assertEqual(smap.function(0xffffffff8a000150, slide),
				 'native_play_dead')
		self.assertEqual(smap.name(0xffffffff80000000, slide), '?')


if __name__ == '__main__':
	unittest.main()
