#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The swap image and its damage for the refusal scenarios."""

import struct
import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.lab import swap
from hiblab.lab.swap_fixtures import KERNEL_PAGE, PATTERN_PAGE, uncompressed_disk

class SwapImageTest(unittest.TestCase):
	def make_disk(self, path: Path) -> None:
		page = 4096
		disk = bytearray(page * 16)
		disk[4086:4096] = b'S1SUSPEND\0'
		disk[4064:4072] = (3).to_bytes(8, 'little')	# map page
		for i, off in enumerate((5, 6, 7, 8)):		# header, data...
			disk[3 * page + 8 * i:3 * page + 8 * i + 8] = \
				off.to_bytes(8, 'little')
		disk[5 * page + 8:5 * page + 16] = \
			(0x2a60a000).to_bytes(8, 'little')	# jump_address_phys
		disk[5 * page + 24:5 * page + 32] = \
			(0x23456789ABCDEF02).to_bytes(8, 'little')
		path.write_bytes(bytes(disk))

	def test_layout_and_each_corruption(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			disk = Path(tmp) / 'swap.img'
			self.make_disk(disk)
			image = swap.read_image(disk)
			self.assertEqual((image.map_page, image.header_page,
					  image.data_pages), (3, 5, (6, 7, 8)))
			before = disk.read_bytes()
			self.assertIn('magic', swap.corrupt(disk, 'header'))
			after = disk.read_bytes()
			self.assertEqual(int.from_bytes(after[5 * 4096 + 24:
							      5 * 4096 + 32],
							'little'),
					 0x23456789ABCDEF02 ^ (2 ** 64 - 1))
			self.assertEqual(sum(a != b for a, b in zip(before, after)), 8)
			# jump_address_phys moves by 2M + 4K; nothing else changes.
			what = swap.corrupt(disk, 'jump-phys')
			self.assertIn('from 0x2a60a000 to 0x2a80b000', what)
			moved = disk.read_bytes()
			self.assertEqual(moved[5 * 4096 + 8:5 * 4096 + 16],
					 (0x2a80b000).to_bytes(8, 'little'))
			self.assertEqual(sum(a != b for a, b in zip(after, moved)), 2)
			# Compressed: the start of the middle data page, which
			# is always inside a chunk.
			self.assertIn('start of compressed data page 7',
				      swap.corrupt(disk, 'data'))
			damaged = disk.read_bytes()
			self.assertEqual([i for i, (a, b) in enumerate(zip(
				moved, damaged)) if a != b],
					 list(range(7 * 4096, 7 * 4096 + 16)))
			swap.corrupt(disk, 'signature')
			with self.assertRaisesRegex(LabError, 'holds no hibernation '
						    'image'):
				swap.read_image(disk)


	def test_the_pattern_is_recognised_in_real_pages(self) -> None:
		self.assertTrue(swap.is_pattern_page(PATTERN_PAGE))
		self.assertFalse(swap.is_pattern_page(KERNEL_PAGE))
		self.assertFalse(swap.is_pattern_page(bytes(4096)))
		# One word off and the page is not the pattern.
		off = bytearray(PATTERN_PAGE)
		off[4000] ^= 1
		self.assertFalse(swap.is_pattern_page(bytes(off)))

	def test_uncompressed_damage_hits_the_pattern_only(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			disk = Path(tmp) / 'swap.img'
			uncompressed_disk(disk)
			before = disk.read_bytes()
			self.assertFalse(swap.read_image(disk).compressed)
			self.assertIn('pattern page 11', swap.corrupt(disk, 'data'))
			after = disk.read_bytes()
			changed = [i for i, (a, b) in enumerate(zip(before, after))
				   if a != b]
			self.assertEqual(changed, list(range(11 * 4096 + 2048,
							     11 * 4096 + 2064)))
			words = struct.unpack('<512Q', after[11 * 4096:])
			first = swap.unmix(words[0])
			bad = [j for j, w in enumerate(words)
			       if swap.unmix(w) ^ first != j]
			self.assertEqual(len(bad), swap.DAMAGED_WORDS)

	def test_an_uncompressed_image_without_the_pattern_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			disk = Path(tmp) / 'swap.img'
			uncompressed_disk(disk)
			data = bytearray(disk.read_bytes())
			data[11 * 4096:] = KERNEL_PAGE
			disk.write_bytes(bytes(data))
			with self.assertRaisesRegex(LabError, 'no page of the '
						    'agent.s pattern'):
				swap.corrupt(disk, 'data')
			self.assertEqual(disk.read_bytes(), bytes(data))


if __name__ == '__main__':
	unittest.main()
