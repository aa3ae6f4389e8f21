#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The agent's protocol: the parser, and the agent held to the table."""

import re
import shutil
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

from hiblab.kernel import guest
from hiblab.lab import protocol, swap
from hiblab.lab.swap_fixtures import KERNEL_PAGE, uncompressed_disk


def agent_says(source: str) -> list:
	"""(event, keys) of every say("...") in the agent's C source, with
	adjacent string literals joined."""
	out = []
	for m in re.finditer(r'\bsay\(((?:\s*"(?:[^"\\]|\\.)*")+)', source):
		fmt = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
		name, _, rest = fmt.partition(' ')
		out.append((name, re.findall(r'(\w+)=', rest)))
	return out


class ProtocolTest(unittest.TestCase):
	def test_events_and_fields(self) -> None:
		lines = ['[    1.000000] Run /init as init process',
			 'HIBLAB hello mode=image',
			 '[    2.5] x HIBLAB pattern-check bytes=341 bad_words=0',
			 'HIBLAB']
		events = protocol.parse_log(lines)
		self.assertEqual([e.name for e in events],
				 ['hello', 'pattern-check'])
		self.assertEqual(events[1].int('bytes'), 341)
		self.assertEqual(events[1].line, 3)
		self.assertEqual(protocol.first(events, 'hello').get('mode'),
				 'image')
		self.assertIsNone(protocol.first(events, 'done'))

	def test_asking_for_an_event_outside_the_table_is_a_bug(self) -> None:
		with self.assertRaises(AssertionError):
			protocol.first([], 'hibernated')

	def test_splats_and_stamps(self) -> None:
		lines = ['[    3.100000] PM: hibernation: Creating image:',
			 '[    3.200000] WARNING: CPU: 1 PID: 1 at kernel/x.c:1',
			 'HIBLAB say WARNING: not a splat',
			 '[    4.000000] reboot: Power down']
		self.assertEqual(protocol.splats(lines), [lines[1]])
		self.assertEqual(protocol.kernel_stamps(
			lines, {'snapshot': 'Creating image', 'off': 'Power down',
				'none': 'absent'}), {'snapshot': 3.1, 'off': 4.0})

	# A real oops (a captured cycle: an int3 from a text-poke race in
	# Debian's 6.12 kernel), as the console may interleave it.
	INT3 = (Path(__file__).parent / 'test_data' / 'cycles' /
		'6.12-topic-to-debian-int3' / 'boot2-restore-console.log')

	def oops_log(self) -> tuple:
		lines = self.INT3.read_text().splitlines()
		i = next(i for i, l in enumerate(lines) if 'Oops: int3' in l)
		return lines, i

	def test_a_kernel_line_inside_an_agent_line_is_kernel_output(self) -> None:
		# Captured (7.3-topic-5-to-debian-4): the agent's line was cut by
		# printk's.
		line = ('HIBLAB swap dev=[    1.286642] Adding 1048572k swap on '
			'/dev/vda.  Priority:-1 extents:1 across:1048572k ')
		self.assertEqual(protocol.kernel_text(line),
				 '[    1.286642] Adding 1048572k swap on /dev/vda.'
				 '  Priority:-1 extents:1 across:1048572k')
		self.assertEqual(protocol.kernel_text('HIBLAB say WARNING: x=1'),
				 '')
		self.assertEqual(protocol.kernel_text(
			'[    2.0] x: y HIBLAB hello mode=image'), '[    2.0] x: y')

	def test_a_splat_header_cut_into_an_agent_line_is_found(self) -> None:
		lines, i = self.oops_log()
		oops = lines[i]
		lines[i] = 'HIBLAB workers-c' + oops
		found = protocol.splats(lines)
		self.assertEqual(found[0], oops)
		self.assertEqual(found[1], oops + ' ... [    1.317823] Call Trace:')

	def test_a_dump_without_a_splat_line_names_its_cause(self) -> None:
		# As a dump_stack() prints it: the header, no WARNING: or Oops.
		lines, i = self.oops_log()
		del lines[i]
		self.assertEqual(protocol.splats(lines)[0],
				 '[    1.308311] integrity: Machine keyring initialized'
				 ' ... [    1.317823] Call Trace:')


class AgentTableTest(unittest.TestCase):
	"""The agent sends what the table says, and its comment is the table."""
	SOURCE = guest.AGENT_SOURCE.read_text()

	def test_the_agent_header_carries_the_table(self) -> None:
		table = '\n'.join((' * ' + l).rstrip() for l in
				  protocol.table_text().splitlines())
		self.assertIn(table, self.SOURCE)

	def test_every_say_is_an_event_with_its_keys(self) -> None:
		says = agent_says(self.SOURCE)
		self.assertGreater(len(says), 20)
		for name, keys in says:
			with self.subTest(event=name):
				self.assertIn(name, protocol.EVENTS)
				self.assertLessEqual(
					set(keys), set(protocol.EVENTS[name].keys))

	def test_every_event_of_the_table_is_sent(self) -> None:
		sent = {name for name, _ in agent_says(self.SOURCE)}
		self.assertEqual(set(protocol.EVENTS) - sent, set())

	def test_the_reader_sees_a_wrong_key(self) -> None:
		# The check above is only as good as agent_says(): it must see
		# keys across joined literals.
		self.assertEqual(agent_says('say("a x=%d "\n\t    "y=%s", 1, 2);'),
				 [('a', ['x', 'y'])])


def c_string(literal: str) -> bytes:
	"""A C string literal's bytes (the escapes the agent uses)."""
	return literal.encode().decode('unicode_escape').encode('latin-1')


class AgentDamageTest(unittest.TestCase):
	"""hiblab.damage: the agent damages the image as swap.corrupt()
	does from the host.  The agent cannot run here: hold its constants,
	names and lengths to lab.swap's, and a model of its arithmetic (the
	lines of damage_image(), quoted) to corrupt() on a synthetic image."""
	SOURCE = guest.AGENT_SOURCE.read_text()
	DEFINES = dict(re.findall(r'^#define\s+(\w+)\s+(\S+)', SOURCE, re.M))

	def damage_image(self) -> str:
		return self.SOURCE.split('static void damage_image(')[1] \
			.split('\n}\n')[0]

	def test_the_layout_constants_are_the_hosts(self) -> None:
		for name in ('PAGE', 'SIG_OFFSET', 'IMAGE_OFFSET',
			     'MAGIC_OFFSET', 'JUMP_PHYS_OFFSET', 'JUMP_PHYS_MOVE',
			     'MAP_ENTRIES', 'FLAGS_OFFSET', 'SF_NOCOMPRESS_MODE',
			     'DATA_BYTES'):
			with self.subTest(name=name):
				self.assertEqual(int(self.DEFINES[name], 0),
						 getattr(swap, name))
		self.assertEqual(c_string(self.DEFINES['HIBERNATE_SIG'][1:-1]),
				 swap.HIBERNATE_SIG)

	def test_the_damages_are_the_hosts(self) -> None:
		m = re.search(r'damages\[\] = \{([^}]*)\}', self.SOURCE)
		self.assertEqual(tuple(re.findall(r'"([\w-]+)"', m.group(1))),
				 swap.CORRUPTIONS)
		# damage_image(): signature, header, jump-phys, else data, in
		# that order.
		body = self.damage_image()
		self.assertEqual(re.findall(r'strcmp\(what, "([\w-]+)"\)', body),
				 ['signature', 'header', 'jump-phys'])

	def agent_damage(self, disk: bytes, what: str) -> bytes:
		"""What damage_image() does to `disk`, from its constants and
		its lines."""
		page_size = int(self.DEFINES['PAGE'])
		sig = int(self.DEFINES['SIG_OFFSET'])
		(map_page,) = struct.unpack_from(
			'<Q', disk, int(self.DEFINES['IMAGE_OFFSET']))
		entries = struct.unpack_from(
			f'<{self.DEFINES["MAP_ENTRIES"]}Q', disk,
			map_page * page_size)
		pages = [e for e in entries if e]	# if (map[i]) ...
		n = len(pages)
		body = self.damage_image()
		lens = [int(x) for x in re.findall(r'len = (\d+);', body)]
		out = bytearray(disk)
		if what == 'signature':
			literal = re.search(r'disk_io\(fd, off, "([^"]*)"', body)
			new = c_string(literal.group(1))[:lens[0]]
			self.assertEqual(len(new), lens[0])
			out[sig:sig + len(new)] = new
			return bytes(out)
		if what == 'jump-phys':
			self.assertIn('ret = move_u64(fd, off, JUMP_PHYS_MOVE);', body)
			off = pages[0] * page_size + \
				int(self.DEFINES['JUMP_PHYS_OFFSET'], 0)
			self.assertEqual(lens[2], 8)
			(v,) = struct.unpack_from('<Q', out, off)
			struct.pack_into('<Q', out, off, (v + int(
				self.DEFINES['JUMP_PHYS_MOVE'], 0)) % 2 ** 64)
			return bytes(out)
		(flags,) = struct.unpack_from(
			'<I', disk, int(self.DEFINES['FLAGS_OFFSET']))
		if what == 'header':
			self.assertIn('page = pages[0];', body)
			off, length = pages[0] * page_size + \
				int(self.DEFINES['MAGIC_OFFSET']), lens[1]
		elif not flags & int(self.DEFINES['SF_NOCOMPRESS_MODE']):
			self.assertIn('} else if (!(flags & SF_NOCOMPRESS_MODE)) {\n'
				      '\t\t/* data_pages[len(data_pages) // 2], '
				      'where a chunk is */\n'
				      '\t\tpage = pages[1 + (n - 1) / 2];\n'
				      '\t\toff = page * PAGE;\n', body)
			off = pages[1 + (n - 1) // 2] * page_size
			length = int(self.DEFINES['DATA_BYTES'])
		else:
			self.assertIn('page = first_pattern_page(fd, map_page, '
				      'pages[0]);', body)
			self.assertIn('off = page * PAGE + PAGE / 2;', body)
			off = self.agent_pattern_page(disk, map_page, pages[0]) * \
				page_size + page_size // 2
			length = int(self.DEFINES['DATA_BYTES'])
		out[off:off + length] = bytes(b ^ 0xff for b in
					      out[off:off + length])
		return bytes(out)

	HELPERS = ('disk_io', 'unxorshift', 'unmix', 'is_pattern_page',
		   'first_pattern_page')

	def agent_pattern_page(self, disk: bytes, map_page: int,
			       header: int) -> int:
		"""The agent's own first_pattern_page() (and the helpers it
		calls, quoted from its source), compiled for the host and run
		on `disk`."""
		if not shutil.which('gcc'):
			self.skipTest('no gcc')
		funcs = []
		for name in self.HELPERS:
			m = re.search(r'^static [^\n]*\b' + name + r'\(.*?^}\n',
				      self.SOURCE, re.M | re.S)
			self.assertIsNotNone(m, name)
			funcs.append(m.group(0))
		harness = '\n'.join(
			['#include <errno.h>', '#include <fcntl.h>',
			 '#include <stdbool.h>', '#include <stdio.h>',
			 '#include <stdlib.h>', '#include <unistd.h>',
			 f'#define PAGE {self.DEFINES["PAGE"]}',
			 f'#define MAP_ENTRIES {self.DEFINES["MAP_ENTRIES"]}'] +
			funcs + ['int main(int argc, char **argv)', '{',
				 '\tint fd = open(argv[1], O_RDONLY);',
				 '\tprintf("%llu\\n", first_pattern_page(fd, '
				 'strtoull(argv[2], 0, 0), strtoull(argv[3], 0, 0)));',
				 '\treturn 0;', '}', ''])
		with tempfile.TemporaryDirectory() as tmp:
			src, exe = Path(tmp) / 'h.c', Path(tmp) / 'h'
			img = Path(tmp) / 'disk'
			src.write_text(harness)
			img.write_bytes(disk)
			subprocess.run(['gcc', '-O2', '-Wall', '-Werror', '-o',
					str(exe), str(src)], check=True)
			out = subprocess.run([str(exe), str(img), str(map_page),
					      str(header)], check=True,
					     capture_output=True, text=True)
		return int(out.stdout)

	def test_the_agent_finds_the_pattern_page_the_host_does(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'swap.img'
			uncompressed_disk(path)
			disk = path.read_bytes()
			self.assertEqual(self.agent_pattern_page(disk, 3, 4), 11)
			# No pattern page: 0, which damage_image() reports.
			self.assertEqual(self.agent_pattern_page(
				disk[:11 * 4096] + KERNEL_PAGE, 3, 4), 0)
			path.write_bytes(disk)
			swap.corrupt(path, 'data')
			self.assertEqual(self.agent_damage(disk, 'data'),
					 path.read_bytes())

	def test_the_agent_damages_the_bytes_the_host_does(self) -> None:
		page = swap.PAGE
		disk = bytearray(bytes(range(256)) * (16 * page // 256))
		disk[swap.SIG_OFFSET:swap.SIG_OFFSET + 10] = \
			swap.HIBERNATE_SIG + bytes(1)
		struct.pack_into('<Q', disk, swap.IMAGE_OFFSET, 3)
		# Map page 3: header page 4, data pages 5..9, one hole.
		struct.pack_into('<512Q', disk, 3 * page, 4, 5, 0, 6, 7, 8, 9,
				 *[0] * 505)
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'swap.img'
			for what in swap.CORRUPTIONS:
				with self.subTest(damage=what):
					path.write_bytes(disk)
					swap.corrupt(path, what)
					self.assertEqual(
						self.agent_damage(bytes(disk), what),
						path.read_bytes())

	def test_the_damaged_event(self) -> None:
		p = protocol.EVENTS['damaged']
		self.assertEqual(p.modes, ('restore',))
		self.assertLessEqual({'what', 'page', 'offset'}, set(p.keys))


if __name__ == '__main__':
	unittest.main()
