# SPDX-License-Identifier: GPL-2.0
"""For the tests of the host's and the agent's image reading (swap_test,
protocol_test): a small nocompress image on a swap disk, built from pages
of a real one."""

import struct
from pathlib import Path

from hiblab.lab import swap

SWAP_DATA = Path(__file__).parent / 'test_data' / 'swap'
PATTERN_PAGE = (SWAP_DATA / 'pattern-page.bin').read_bytes()
KERNEL_PAGE = (SWAP_DATA / 'kernel-page.bin').read_bytes()


def uncompressed_disk(path: Path) -> None:
	"""Map pages 3 and 9 (chained); header 4; data 5 (kernel), 6 (zero),
	then on the second map page 10 (kernel) and 11 (the real pattern
	page); flags say nocompress."""
	page = 4096
	disk = bytearray(page * 12)
	disk[4086:4096] = b'S1SUSPEND\0'
	struct.pack_into('<QI', disk, 4064, 3, swap.SF_NOCOMPRESS_MODE)
	struct.pack_into('<4Q', disk, 3 * page, 4, 5, 6, 0)
	struct.pack_into('<Q', disk, 3 * page + 8 * swap.MAP_ENTRIES, 9)
	struct.pack_into('<2Q', disk, 9 * page, 10, 11)
	disk[5 * page:6 * page] = KERNEL_PAGE
	disk[10 * page:11 * page] = KERNEL_PAGE
	disk[11 * page:12 * page] = PATTERN_PAGE
	path.write_bytes(bytes(disk))
