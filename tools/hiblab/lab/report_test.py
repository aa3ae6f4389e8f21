#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab report, rendered from captured records of real runs."""

import html
import re
import unittest
from pathlib import Path
from typing import List

from hiblab.lab import judge, judge_test, records, report, scenarios
from hiblab.lab.records import BootRecord, ScenarioRun
from hiblab.verdict import FAIL, PASS, Verdict

CYCLES = Path(__file__).parent / 'test_data' / 'cycles'


def captured(*names: str) -> List[ScenarioRun]:
	runs = []
	for name in names:
		record = records.load(CYCLES / name)
		runs.append(ScenarioRun(scenarios.SCENARIOS[record.scenario],
					CYCLES / name, record))
	return runs


def page(*names: str) -> str:
	runs = captured(*names)
	verdicts = [Verdict(f'{r.scenario.name}/{v.name}', v.status, v.detail)
		    for r in runs
		    for v in judge_test.without_cpu_state(r.record, {
			    v.name: v for v in judge.judge_cycle(
				    r.scenario, r.record)}).values()]
	return report.render('lab run test', verdicts, runs)


def text(markup: str) -> str:
	return html.unescape(re.sub(r'<[^>]+>', ' ', markup))


class ReportTest(unittest.TestCase):
	def test_the_registers_each_holder_kept(self) -> None:
		p = page('7.3-smoke-cpu-state', '7.3-cpu-state-task-pkru-lost')
		self.assertEqual(p.count('>Registers held across the hibernation'),
				 2)
		self.assertIn('<td>CPU0</td><td>hibernating task</td><td class='
			      '"FAIL">1 differ</td>', p)
		self.assertIn('pkru: 0x1563e6a4 -&gt; 0x55555554', p)
		self.assertEqual(p.count('>intact<'), 9)

	def test_the_kernel_grid(self) -> None:
		p = page('6.12-smoke', '6.12-debian-to-topic',
			 '6.12-topic-to-debian', '7.3-topic-5-to-debian-4')
		grid = p.split('<h2>Image kernel (rows) x restore kernel '
			       '(columns)</h2>', 1)[1].split('</table>', 1)[0]
		rows = re.findall(r'<tr><th>(\w*)</th>(.*?)</tr>', grid)
		self.assertEqual([r for r, _ in rows], ['', 'series', 'debian'])
		self.assertEqual(re.findall(r'<th>(\w+)</th>', rows[0][1]),
				 ['series', 'debian'])
		cells = [re.findall(r'<td[^>]*>(.*?)</td>', cols)
			 for _, cols in rows[1:]]
		self.assertEqual([[text(c).split() for c in row] for row in cells],
				 [[['smoke', '(restored)'],
				   ['topic-to-debian', '(restored)',
				    'topic-5-to-debian-4', '(resets)']],
				  [['debian-to-topic', '(restored)'], []]])
		self.assertIn('<a href="#debian-to-topic" class="PASS">', grid)
		# One kernel twice: no grid.
		self.assertNotIn('Image kernel (rows)', page('6.12-smoke'))

	def test_smoke(self) -> None:
		p = page('6.12-smoke')
		self.assertIn('lab run test: <span class="PASS">PASS', p)
		for check in ('image-saved', 'hlt-parking', 'pattern', 'no-splat'):
			self.assertIn(f'<td>{check}</td>', p)
		# Verdicts link to the logs of the boot they were judged from.
		self.assertIn('href="6.12-smoke/boot2-restore-console.log"', p)
		self.assertIn('href="6.12-smoke/gdb-transcript.txt"', p)
		self.assertIn('<svg', p)
		self.assertRegex(text(p), r'Wrote \d+ MiB in [\d.]+ s')
		self.assertRegex(text(p), r'Read \d+ MiB in [\d.]+ s')
		# Every vCPU, parked, with the code around its RIP.
		self.assertEqual(p.count('>parked<'), 4)
		self.assertRegex(text(p), r'> [0-9a-f]+: jmp .*hlt_play_dead')
		# Both layouts side by side, differing values marked.
		self.assertIn('<th>boot1-image</th><th>boot2-restore</th>', p)
		self.assertIn('class="diff"', p)
		self.assertNotIn('<script', p)
		self.assertNotRegex(p, r'(src|href)="https?:')

	def test_a_failing_vcpu_is_red_with_its_instruction(self) -> None:
		p = page('6.12-mwait-during-restore')
		self.assertIn('<h1>lab run test: <span class="FAIL">FAIL', p)
		self.assertIn('<tr class="bad">', p)
		self.assertIn('NOT PARKED', p)
		self.assertRegex(p, r'<span class="FAIL">&gt; [0-9a-f]+: ')

	def test_a_refusal_has_no_vcpu_table(self) -> None:
		p = page('6.12-corrupt-header')
		self.assertIn('<td>refused</td>', p)
		self.assertNotIn('vCPUs at swsusp_arch_resume', p)

	def test_several_cycles_get_a_chart(self) -> None:
		# Scenario names are unique in a run: corrupt-header passed,
		# the mutant's smoke failed.
		p = page('6.12-corrupt-header', '6.12-mwait-during-restore')
		self.assertIn('Cycles: wall time each', p)
		self.assertEqual(p.count(f'fill="{report.COLOURS[PASS]}"'), 1)
		self.assertEqual(p.count(f'fill="{report.COLOURS[FAIL]}"'), 1)
		self.assertNotIn('Cycles:', page('6.12-smoke'))


class TimelineTest(unittest.TestCase):
	def boot(self, kernel: str, times: dict) -> BootRecord:
		return BootRecord('b', kernel, 0, [], None, 0, times, started=10.0)

	def test_segments_follow_the_waits(self) -> None:
		b = self.boot('restore', {'restore-boot': 2.0,
					  'to-swsusp_arch_resume': 5.0,
					  'restore-to-done': 9.0})
		self.assertEqual([(s, e) for s, e, _, _ in report.segments(b)],
				 [(10.0, 12.0), (12.0, 17.0), (17.0, 21.0)])
		self.assertEqual(report.duration(b), 11.0)

	def test_a_boot_that_stopped_early(self) -> None:
		b = self.boot('image', {'image-boot': 240.0})
		self.assertEqual([(s, e) for s, e, _, _ in report.segments(b)],
				 [(10.0, 250.0)])

	def test_the_resumed_kernel_is_placed_from_the_breakpoint(self) -> None:
		image, restore = records.load(CYCLES / '6.12-smoke').boots
		snap = report.snapshot_stamp(image)
		self.assertIsNotNone(snap)
		# The restored clock goes on from the snapshot: its first stamp
		# after the jump is within seconds of it.
		self.assertLess(abs(restore.phases()['enable-cpus'] - snap), 5.0)


if __name__ == '__main__':
	unittest.main()
