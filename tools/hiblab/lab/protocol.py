# SPDX-License-Identifier: GPL-2.0
"""The guest agent's line protocol: 'HIBLAB <event> key=value ...'.

Lines may be preceded by anything the console adds (a kernel message that
raced with the agent's write); everything else on the serial log is kernel
output, which the checks read separately for splats and phase timestamps.

EVENTS is the protocol, written down once: qemu/agent/hiblab-agent.c's
header comment carries table_text() verbatim, and protocol_test.py checks
both that comment and every say() of the agent against it.
"""

import dataclasses
import re
import textwrap
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
class Proto:
	"""One event: the keys it may carry and the agent modes that send it."""
	keys: tuple
	modes: tuple
	meaning: str


ANY = ('image', 'restore', 'probe')
EVENTS: Dict[str, Proto] = {
	'hello': Proto(('mode',), ANY, 'the agent runs (/init)'),
	'module': Proto(('path', 'ret'), ANY, 'a module of /hiblab-modules '
			'loaded (ret=0) or not (-errno): the kernel has the '
			'disk\'s driver as a module'),
	'disk': Proto(('dev', 'waited_ms'), ANY, 'after the modules: the disk '
		      'appeared, or 30 s passed'),
	'probe-ok': Proto((), ('probe',), 'the probe boot reached the agent; '
			  'powering off'),
	'layout': Proto(('boot', 'text', 'text_phys', 'page_offset_base',
			 'swsusp_arch_resume', 'restore_image', 'hlt_play_dead',
			 'native_play_dead'), ('image', 'restore'),
			'this kernel\'s KASLR layout (boot=image|restore)'),
	'cpu': Proto(('cpu', 'online', 'ret'), ('image', 'restore'),
		     'a CPU was put on- or offline'),
	'swap': Proto(('dev', 'bytes', 'ret'), ('image', 'restore'),
		      'mkswap + swapon of the disk'),
	'refused': Proto(('reason',), ('image',), 'the agent will not run '
			 'here (no hypervisor bit: never on a real machine)'),
	'checker-error': Proto(('what', 'errno', 'ret', 'bytes', 'reason',
				'pages'), ANY,
			       'the agent could not do its part: no verdict '
			       'on the kernel'),
	'workers': Proto(('online',), ('image',), 'a busy worker per CPU runs'),
	'hibernating': Proto(('round', 'key', 'bytes', 'online'), ('image',),
			     'pattern written; writing /sys/power/state'),
	'resumed': Proto(('round', 'ret'), ('image',), 'the write returned: '
			 'restored (ret=0) or the save failed'),
	'pattern-check': Proto(('round', 'bytes', 'bad_words', 'first_bad'),
			       ('image',), 'the pattern read back'),
	'tmpfs-check': Proto(('bytes', 'bad_words', 'first_bad'), ('image',),
			     'the tmpfs file read back'),
	'cpus-check': Proto(('round', 'before', 'after'), ('image',),
			    'online CPUs before and after'),
	'trace-check': Proto(('round', 'machine_suspend'), ('image',),
			     'power:suspend_resume events in the trace buffer'),
	'cpu-state': Proto(('round', 'cpu', 'who', 'regs', 'bad'), ('image',),
			   'the registers a program owns, read back after the '
			   'write to /sys/power/state returned, by the worker '
			   'on a CPU (who=worker) or the hibernating task '
			   '(who=task): the groups held (regs=unanswered: the '
			   'worker did not answer) and how many differ'),
	'cpu-state-bad': Proto(('round', 'cpu', 'who', 'reg', 'expected',
				'found'), ('image',), 'one register (a vector '
			       'register per 64-bit lane: ymm3.2) that the '
			       'holder did not get back'),
	'worker-stuck': Proto(('cpu',), ('image',), 'a worker did not advance'),
	'workers-check': Proto(('running', 'stuck'), ('image',),
			       'the workers advanced'),
	'done': Proto((), ('image',), 'every round verified; powering off'),
	'damaged': Proto(('what', 'page', 'offset', 'bytes', 'map_page',
			  'pages'), ('restore',), 'hiblab.damage=: the agent '
			 'damaged the image on the disk as swap.corrupt() '
			 'does from the host (offset: first byte changed)'),
	'ready-to-resume': Proto(('dev',), ('restore',), 'waiting for "go" '
				 'on the protocol channel (hiblab.go=auto: '
				 'going on at once)'),
	'resuming': Proto((), ('restore',), 'writing /sys/power/resume'),
	'no-image': Proto(('ret',), ('restore',), 'the resume returned: no '
			  'image, or the kernel refused it; a fresh boot'),
}


def table_text() -> str:
	"""The protocol as the agent's header comment carries it."""
	rows = []
	for name, p in EVENTS.items():
		rows += textwrap.wrap(f'{name} ({",".join(p.modes)}): '
				      f'{" ".join(p.keys) or "-"}', 72,
				      subsequent_indent='        ')
	return '\n'.join(rows)


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
	assert name in EVENTS, f'{name} is not an event of the protocol'
	return next((e for e in events if e.name == name), None)


# What a stack dump prints between the line that says why it was printed and
# its "Call Trace:" (dump_stack_print_info(), show_regs()).
_DUMP_HEADER = re.compile(r'(CPU: \d+ |Hardware name: |Workqueue: |Tainted: |'
			  r'Modules linked in:|Sched_ext: |RIP: |Code: |RSP: |'
			  r'RAX: |RDX: |RBP: |R\d+ ?: |FS: |CS: |CR2: |DR\d: |'
			  r'PKRU: |-+\[ cut here \]-+)')


def splats(lines: Iterable[str]) -> List[str]:
	"""Kernel log lines that report a warning, bug, oops or lockdep splat.

	A "Call Trace:" comes with the line above its dump's header, which
	says why the stack was dumped: a dump_stack() has no splat line of its
	own."""
	kernel = [kernel_text(l) for l in lines]
	found = []
	for i, l in enumerate(kernel):
		if not any(s in l for s in SPLATS):
			continue
		if 'Call Trace:' in l:
			why = next((k for k in reversed(kernel[:i]) if k and
				    not _DUMP_HEADER.match(_message(k))), '')
			l = f'{why} ... {l}' if why else l
		found.append(l)
	return found


# A printk line's start, wherever the console put it.
_STAMP_ANYWHERE = re.compile(r'\[\s*\d+\.\d+\]\s')


def kernel_text(line: str) -> str:
	"""The kernel's part of a console line.

	The console interleaves the agent's writes with printk's: kernel text
	may come before an agent line, and a kernel line may start in the
	middle of one (a WARNING: header hidden there would leave its Call
	Trace without a cause)."""
	if MARK not in line:
		return line.rstrip()
	before, agent = line.split(MARK, 1)
	m = _STAMP_ANYWHERE.search(agent)
	return (before + (agent[m.start():] if m else '')).rstrip()


def _message(line: str) -> str:
	m = _STAMP.match(line.strip())
	return m.group(2) if m else line.strip()


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
