#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The swap image and its damage for the refusal scenarios."""

import tempfile
import unittest
from pathlib import Path

from hiblab.errors import LabError
from hiblab.lab import swap


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
			swap.corrupt(disk, 'data')
			self.assertNotEqual(disk.read_bytes()[7 * 4096:8 * 4096],
					    before[7 * 4096:8 * 4096])
			swap.corrupt(disk, 'signature')
			with self.assertRaisesRegex(LabError, 'holds no hibernation '
						    'image'):
				swap.read_image(disk)


if __name__ == '__main__':
	unittest.main()
