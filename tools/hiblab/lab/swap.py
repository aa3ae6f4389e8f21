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
                (the next map page, 0 after the last)
  entries[0]    the image header page (struct swsusp_info); on x86 it
                starts with struct restore_data_record: jump_address,
                jump_address_phys, cr3, magic, e820_checksum (u64 each)
  entries[1..]  image data (LZO-compressed unless hibernate=nocompress)

Compressed data is written in chunks, each a u64 length and the
compressed bytes, each starting on a page of its own: the first bytes of
any data page are in a chunk, the rest of a chunk's last page is unused.
Uncompressed data is the PFN list, then the pages themselves.

'data' damage must be seen wherever the layout puts things: in a
compressed image 16 bytes at the start of the middle data page of the
first map page (an unused tail would go unnoticed); in an uncompressed
one, which nothing checks, 16 bytes in the middle of the first page of
the agent's pattern (a kernel page would crash the restored kernel, and
whether it does depends on the layout), so the pattern check after the
restore finds exactly DAMAGED_WORDS bad words.  The agent's damage_image()
does the same.
"""

import dataclasses
import struct
from pathlib import Path

from hiblab.errors import LabError

PAGE = 4096
HIBERNATE_SIG = b'S1SUSPEND'
SIG_OFFSET = 4086
IMAGE_OFFSET = 4064
FLAGS_OFFSET = 4072
SF_NOCOMPRESS_MODE = 2		# kernel/power/power.h
MAP_ENTRIES = 511
MAGIC_OFFSET = 24		# restore_data_record.magic in the header page
JUMP_PHYS_OFFSET = 8		# restore_data_record.jump_address_phys
# Moves jump_address_phys to another 2M page and off its 2M offset: a
# restore kernel without a check would map the wrong page for its jump.
JUMP_PHYS_MOVE = 0x200000 + 0x1000
CORRUPTIONS = ('signature', 'header', 'jump-phys', 'data')
DATA_BYTES = 16
DAMAGED_WORDS = DATA_BYTES // 8	# pattern words a 'data' damage changes
WORDS = PAGE // 8
_M64 = 2 ** 64 - 1


@dataclasses.dataclass(frozen=True)
class Image:
	map_page: int		# page offset of the first swap_map_page
	header_page: int	# page offset of the image header
	data_pages: tuple	# page offsets of the first data pages
	compressed: bool = True

	def describe(self) -> str:
		return f'map page {self.map_page}, header page ' \
			f'{self.header_page}, {len(self.data_pages)} data pages ' \
			'in the first map page, ' + \
			('compressed' if self.compressed else 'uncompressed')


def read_image(disk: Path) -> Image:
	"""The image's first pages; LabError if the disk holds no image."""
	with disk.open('rb') as f:
		head = f.read(PAGE)
		if head[SIG_OFFSET:SIG_OFFSET + len(HIBERNATE_SIG)] != HIBERNATE_SIG:
			raise LabError(f'{disk} holds no hibernation image '
				       f'(signature {head[SIG_OFFSET:].rstrip(bytes(1))!r})')
		(map_page,) = struct.unpack_from('<Q', head, IMAGE_OFFSET)
		(flags,) = struct.unpack_from('<I', head, FLAGS_OFFSET)
		f.seek(map_page * PAGE)
		entries = struct.unpack('<512Q', f.read(PAGE))[:MAP_ENTRIES]
	pages = [e for e in entries if e]
	if len(pages) < 3:
		raise LabError(f'{disk}: the first swap map page lists only '
			       f'{len(pages)} pages')
	return Image(map_page, pages[0], tuple(pages[1:]),
		     not flags & SF_NOCOMPRESS_MODE)


def _unxorshift(y: int, shift: int) -> int:
	x = y
	for _ in range(64 // shift + 1):
		x = y ^ (x >> shift)
	return x


def unmix(z: int) -> int:
	"""The x that the agent's splitmix64(x) maps to z."""
	z = _unxorshift(z, 31)
	z = z * pow(0x94d049bb133111eb, -1, 2 ** 64) & _M64
	z = _unxorshift(z, 27)
	z = z * pow(0xbf58476d1ce4e5b9, -1, 2 ** 64) & _M64
	z = _unxorshift(z, 30)
	return (z - 0x9e3779b97f4a7c15) & _M64


def is_pattern_page(data: bytes) -> bool:
	"""Whether a page holds the agent's pattern: word i of the pattern
	is splitmix64(key ^ i) and a page starts at a multiple of 512 words,
	so word j of the page unmixes to the first word's value ^ j."""
	words = struct.unpack(f'<{WORDS}Q', data)
	first = unmix(words[0])
	# Two words first: most pages fail there, cheaply.
	if any(unmix(words[j]) ^ first != j for j in (1, WORDS - 1)):
		return False
	return all(unmix(w) ^ first == j for j, w in enumerate(words))


def first_pattern_page(f, image: Image) -> int:
	"""The first data page, in write order, that holds the pattern."""
	map_page, skip = image.map_page, image.header_page
	while map_page:
		f.seek(map_page * PAGE)
		entries = struct.unpack('<512Q', f.read(PAGE))
		for page in entries[:MAP_ENTRIES]:
			if page and page != skip:
				f.seek(page * PAGE)
				if is_pattern_page(f.read(PAGE)):
					return page
		map_page = entries[MAP_ENTRIES]
	raise LabError('the uncompressed image holds no page of the agent\'s '
		       'pattern', 'the agent fills a third of guest RAM with it; '
		       'see the image boot\'s agent log')


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
		elif what == 'data' and image.compressed:
			page = image.data_pages[len(image.data_pages) // 2]
			off = page * PAGE
			_flip(f, off, DATA_BYTES)
			where = (f'{DATA_BYTES} bytes at the start of compressed '
				 f'data page {page} inverted')
		elif what == 'data':
			page = first_pattern_page(f, image)
			off = page * PAGE + PAGE // 2
			_flip(f, off, DATA_BYTES)
			where = (f'{DATA_BYTES} bytes in the middle of pattern '
				 f'page {page} inverted')
		else:
			raise LabError(f'unknown corruption {what!r}',
				       f'choose from {", ".join(CORRUPTIONS)}')
	return f'{where} ({image.describe()})'
