# SPDX-License-Identifier: GPL-2.0
"""A hibernation image on the lab's swap disk, read and damaged by the host.

Layout written by kernel/power/swap.c (4 KiB pages, offsets in pages from
the start of the swap device):

  page 0        swap header; its last bytes are struct swsusp_header:
                ... hw_sig u32 @4056, crc32 u32 @4060, image u64 @4064,
                flags u32 @4072, orig_sig[10] @4076, sig[10] @4086
                (sig is "S1SUSPEND" while an image is there)
  page <image>  the first struct swap_map_page: u64 entries[511] (the page
                offsets of the image pages in write order), u64 next_swap
  entries[0]    the image header page (struct swsusp_info); on x86 it
                starts with struct restore_data_record: jump_address,
                jump_address_phys, cr3, magic, e820_checksum (u64 each)
  entries[1..]  image data (LZO-compressed unless hibernate=nocompress)
"""

import dataclasses
import struct
from pathlib import Path

from hiblab.errors import LabError

PAGE = 4096
HIBERNATE_SIG = b'S1SUSPEND'
SIG_OFFSET = 4086
IMAGE_OFFSET = 4064
MAGIC_OFFSET = 24		# restore_data_record.magic in the header page
JUMP_PHYS_OFFSET = 8		# restore_data_record.jump_address_phys
# Moves jump_address_phys to another 2M page and off its 2M offset: a
# restore kernel without a check would map the wrong page for its jump.
JUMP_PHYS_MOVE = 0x200000 + 0x1000
CORRUPTIONS = ('signature', 'header', 'jump-phys', 'data')


@dataclasses.dataclass(frozen=True)
class Image:
	map_page: int		# page offset of the first swap_map_page
	header_page: int	# page offset of the image header
	data_pages: tuple	# page offsets of the first data pages

	def describe(self) -> str:
		return f'map page {self.map_page}, header page ' \
			f'{self.header_page}, {len(self.data_pages)} data pages ' \
			'in the first map page'


def read_image(disk: Path) -> Image:
	"""The image's first pages; LabError if the disk holds no image."""
	with disk.open('rb') as f:
		head = f.read(PAGE)
		if head[SIG_OFFSET:SIG_OFFSET + len(HIBERNATE_SIG)] != HIBERNATE_SIG:
			raise LabError(f'{disk} holds no hibernation image '
				       f'(signature {head[SIG_OFFSET:].rstrip(bytes(1))!r})')
		(map_page,) = struct.unpack_from('<Q', head, IMAGE_OFFSET)
		f.seek(map_page * PAGE)
		entries = struct.unpack('<512Q', f.read(PAGE))[:511]
	pages = [e for e in entries if e]
	if len(pages) < 3:
		raise LabError(f'{disk}: the first swap map page lists only '
			       f'{len(pages)} pages')
	return Image(map_page, pages[0], tuple(pages[1:]))


def _flip(f, offset: int, length: int) -> None:
	f.seek(offset)
	data = f.read(length)
	f.seek(offset)
	f.write(bytes(b ^ 0xff for b in data))


def corrupt(disk: Path, what: str) -> str:
	"""Damages the image on `disk`; returns what was changed, for the log."""
	image = read_image(disk)
	with disk.open('r+b') as f:
		if what == 'signature':
			f.seek(SIG_OFFSET)
			f.write(b'DAMAGED\0\0\0')
			where = f'signature at byte {SIG_OFFSET} overwritten'
		elif what == 'header':
			off = image.header_page * PAGE + MAGIC_OFFSET
			_flip(f, off, 8)
			where = f'restore_data_record.magic at byte {off} inverted'
		elif what == 'jump-phys':
			off = image.header_page * PAGE + JUMP_PHYS_OFFSET
			f.seek(off)
			(phys,) = struct.unpack('<Q', f.read(8))
			moved = (phys + JUMP_PHYS_MOVE) % 2 ** 64
			f.seek(off)
			f.write(struct.pack('<Q', moved))
			where = (f'restore_data_record.jump_address_phys at byte '
				 f'{off} moved from {phys:#x} to {moved:#x}')
		elif what == 'data':
			page = image.data_pages[len(image.data_pages) // 2]
			off = page * PAGE + PAGE // 2
			_flip(f, off, 16)
			where = f'16 bytes of data page {page} inverted'
		else:
			raise LabError(f'unknown corruption {what!r}',
				       f'choose from {", ".join(CORRUPTIONS)}')
	return f'{where} ({image.describe()})'
