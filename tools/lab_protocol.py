# SPDX-License-Identifier: GPL-2.0
"""The guest agent's line protocol: 'HIBLAB <event> key=value ...'.

Lines may be preceded by anything the console adds (a kernel message that
raced with the agent's write); everything else on the serial log is kernel
output, which the checks read separately for splats and phase timestamps.
"""

import dataclasses
import re
from typing import Dict, Iterable, List, Optional

MARK = 'HIBLAB '
_KV = re.compile(r'(\w+)=(\S*)')
# Kernel log lines with printk timestamps: "[   12.345678] text".
_STAMP = re.compile(r'^\[\s*(\d+\.\d+)\]\s(.*)$')
SPLATS = ('WARNING:', 'BUG:', 'Oops', 'Kernel panic', 'possible recursive '
	  'locking', 'INFO: possible', 'general protection fault',
	  'Call Trace:',
	  # smp_kick_mwait_play_dead() gave up on a CPU: it may still be in
	  # MWAIT while the image is copied.
	  'is stuck in mwait_play_dead')


@dataclasses.dataclass(frozen=True)
class Event:
	name: str
	fields: Dict[str, str]
	line: int		# line number in the serial log, 1-based

	def get(self, key: str, default: str = '') -> str:
		return self.fields.get(key, default)

	def int(self, key: str) -> int:
		return int(self.fields[key], 0)


def parse_line(text: str, line: int = 0) -> Optional[Event]:
	i = text.find(MARK)
	if i < 0:
		return None
	rest = text[i + len(MARK):].strip()
	name, _, args = rest.partition(' ')
	if not name:
		return None
	return Event(name, dict(_KV.findall(args)), line)


def parse_log(lines: Iterable[str]) -> List[Event]:
	events = []
	for n, text in enumerate(lines, 1):
		e = parse_line(text, n)
		if e:
			events.append(e)
	return events


def first(events: List[Event], name: str) -> Optional[Event]:
	return next((e for e in events if e.name == name), None)


def splats(lines: Iterable[str]) -> List[str]:
	"""Kernel log lines that report a warning, bug, oops or lockdep splat."""
	return [l.rstrip() for l in lines if MARK not in l and
		any(s in l for s in SPLATS)]


def kernel_stamps(lines: Iterable[str], needles: Dict[str, str]
		  ) -> Dict[str, float]:
	"""printk time of the first line containing each needle, by name."""
	found: Dict[str, float] = {}
	for l in lines:
		m = _STAMP.match(l.strip())
		if not m:
			continue
		for name, needle in needles.items():
			if name not in found and needle in m.group(2):
				found[name] = float(m.group(1))
	return found
