# SPDX-License-Identifier: GPL-2.0
"""Symbolize a KASLR'd kernel address with that kernel's System.map."""

import bisect
from pathlib import Path
from typing import List, Tuple


class SystemMap:
	def __init__(self, path: Path) -> None:
		self._load(path.read_text())

	@classmethod
	def from_text(cls, text: str) -> 'SystemMap':
		smap = cls.__new__(cls)
		smap._load(text)
		return smap

	def _load(self, text: str) -> None:
		entries: List[Tuple[int, str]] = []
		for line in text.splitlines():
			fields = line.split()
			if len(fields) == 3 and fields[1] in 'tTwW':
				entries.append((int(fields[0], 16), fields[2]))
		entries.sort()
		self.addrs = [a for a, _ in entries]
		self.names = [n for _, n in entries]
		syms = dict(zip(self.names, self.addrs))
		self.text = syms.get('_text', 0)
		self.etext = syms.get('_etext', self.addrs[-1] if self.addrs else 0)

	def offset(self, runtime_text: int) -> int:
		"""The KASLR slide: runtime _text minus link-time _text."""
		return runtime_text - self.text

	def in_text(self, addr: int, slide: int) -> bool:
		return self.text <= addr - slide < self.etext

	def name(self, addr: int, slide: int) -> str:
		"""'function+0xoff' for a runtime address, or '?' outside text."""
		link = addr - slide
		i = bisect.bisect_right(self.addrs, link) - 1
		if i < 0:
			return '?'
		return f'{self.names[i]}+{link - self.addrs[i]:#x}'

	def function(self, addr: int, slide: int) -> str:
		return self.name(addr, slide).split('+', 1)[0]
