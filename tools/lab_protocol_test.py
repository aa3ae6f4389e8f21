#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The agent's protocol: the parser, and the agent held to the table."""

import re
import unittest

import lab_guest
import lab_protocol


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
		events = lab_protocol.parse_log(lines)
		self.assertEqual([e.name for e in events],
				 ['hello', 'pattern-check'])
		self.assertEqual(events[1].int('bytes'), 341)
		self.assertEqual(events[1].line, 3)
		self.assertEqual(lab_protocol.first(events, 'hello').get('mode'),
				 'image')
		self.assertIsNone(lab_protocol.first(events, 'done'))

	def test_asking_for_an_event_outside_the_table_is_a_bug(self) -> None:
		with self.assertRaises(AssertionError):
			lab_protocol.first([], 'hibernated')

	def test_splats_and_stamps(self) -> None:
		lines = ['[    3.100000] PM: hibernation: Creating image:',
			 '[    3.200000] WARNING: CPU: 1 PID: 1 at kernel/x.c:1',
			 'HIBLAB say WARNING: not a splat',
			 '[    4.000000] reboot: Power down']
		self.assertEqual(lab_protocol.splats(lines), [lines[1]])
		self.assertEqual(lab_protocol.kernel_stamps(
			lines, {'snapshot': 'Creating image', 'off': 'Power down',
				'none': 'absent'}), {'snapshot': 3.1, 'off': 4.0})


class AgentTableTest(unittest.TestCase):
	"""The agent sends what the table says, and its comment is the table."""
	SOURCE = lab_guest.AGENT_SOURCE.read_text()

	def test_the_agent_header_carries_the_table(self) -> None:
		table = '\n'.join((' * ' + l).rstrip() for l in
				  lab_protocol.table_text().splitlines())
		self.assertIn(table, self.SOURCE)

	def test_every_say_is_an_event_with_its_keys(self) -> None:
		says = agent_says(self.SOURCE)
		self.assertGreater(len(says), 20)
		for name, keys in says:
			with self.subTest(event=name):
				self.assertIn(name, lab_protocol.EVENTS)
				self.assertLessEqual(
					set(keys), set(lab_protocol.EVENTS[name].keys))

	def test_every_event_of_the_table_is_sent(self) -> None:
		sent = {name for name, _ in agent_says(self.SOURCE)}
		self.assertEqual(set(lab_protocol.EVENTS) - sent, set())

	def test_the_reader_sees_a_wrong_key(self) -> None:
		# The check above is only as good as agent_says(): it must see
		# keys across joined literals.
		self.assertEqual(agent_says('say("a x=%d "\n\t    "y=%s", 1, 2);'),
				 [('a', ['x', 'y'])])


if __name__ == '__main__':
	unittest.main()
