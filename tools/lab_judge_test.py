#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's judges, on captured records of real runs and on edge cases.

tools/test_data/cycles/<capture>/ holds what a real run left in its results
directory (record.json, both boots' console and agent logs, the gdb
transcript; not the swap image).  test_data/cycles/README says which run
and mutant produced each.
"""

import dataclasses
import shutil
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List

import lab_cycle
import lab_gdb
import lab_judge
import lab_lab
import lab_protocol
import lab_record
import lab_scenarios
import lab_symbols
from lab_errors import LabError
from lab_record import VCpuRecord
from lab_verdict import FAIL, PASS, SKIP, Verdict

CYCLES = Path(__file__).parent / 'test_data' / 'cycles'


def judged(capture: str) -> Dict[str, Verdict]:
	record = lab_record.load(CYCLES / capture)
	s = lab_scenarios.SCENARIOS[record.scenario]
	return {v.name: v for v in lab_judge.judge_cycle(s, record)}


def statuses(verdicts: Dict[str, Verdict]) -> Dict[str, str]:
	return {n: v.status for n, v in verdicts.items()}


class CapturedCycleTest(unittest.TestCase):
	"""One capture per verdict kind, passing and failing."""

	def test_smoke_passes_every_check(self) -> None:
		v = judged('6.12-smoke')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertEqual(list(v), ['image-saved', 'hlt-parking', 'restored',
					   'kaslr', 'pattern', 'tmpfs', 'cpus',
					   'workers', 'no-splat'])
		self.assertRegex(v['hlt-parking'].detail,
				 r'CPU1 halted in \w+_play_dead\+0x[0-9a-f]+')

	def test_cpus_in_the_mwait_loop(self) -> None:
		# seed-406f992e4a37-mwait-during-restore: MWAIT parking again.
		v = judged('6.12-mwait-during-restore')
		self.assertEqual(v['hlt-parking'].status, FAIL)
		self.assertRegex(v['hlt-parking'].detail,
				 r'CPU1 running in native_play_dead\+0x')
		# Under TCG the MWAIT-parked CPUs woke up in the overwritten
		# memory: the guest reset without a word after the image load.
		self.assertEqual(v['restored'].status, FAIL)
		self.assertIn('did not finish (qemu exit 0)', v['restored'].detail)

	def test_a_damaged_restored_page(self) -> None:
		# lab-corrupt-one-restored-page: one word of the image flipped.
		v = judged('6.12-corrupt-one-restored-page')
		self.assertEqual(v['pattern'].status, FAIL)
		self.assertRegex(v['pattern'].detail, r'[1-9]\d* bad words')
		self.assertEqual(v['hlt-parking'].status, PASS)

	def test_a_crash_before_the_restore(self) -> None:
		# lab-panic-before-restore-image: the restore kernel panics.
		v = judged('6.12-panic-before-restore-image')
		self.assertEqual(v['restored'].status, FAIL)
		self.assertIn('Kernel panic', v['restored'].detail)
		self.assertNotIn('pattern', v)

	def test_a_refusal(self) -> None:
		v = judged('6.12-corrupt-header')
		self.assertEqual(statuses(v), {
			'image-saved': PASS, 'refused': PASS, 'fresh-boot': PASS,
			'swap-reusable': PASS})

	def test_an_image_restored_that_had_to_be_refused(self) -> None:
		# header-magic-check-removed: the damaged header is accepted.
		v = judged('6.12-header-magic-check-removed')
		self.assertEqual(v['refused'].status, FAIL)
		self.assertNotEqual(set(statuses(v).values()), {PASS})


class CapturedParsersTest(unittest.TestCase):
	"""The parsers under the judges, on the captured smoke run."""
	DATA = CYCLES / '6.12-smoke'

	def test_gdb_transcript_and_the_record_agree(self) -> None:
		cpus = lab_gdb.parse_threads(
			(self.DATA / 'gdb-transcript.txt').read_text())
		self.assertEqual([c.cpu for c in cpus], [0, 1, 2, 3])
		self.assertEqual([c.state for c in cpus[1:]], ['halted'] * 3)
		# QEMU's `monitor info registers -a` through the same gdb.
		self.assertEqual([c.hlt for c in cpus], [False, True, True, True])
		recorded = lab_record.load(self.DATA).boots[1].vcpus
		self.assertEqual([(c.cpu, c.pc, c.state, c.hlt) for c in cpus],
				 [(c.cpu, c.pc, c.state, c.hlt) for c in recorded])

	def test_layouts_and_phases(self) -> None:
		image, restore = lab_record.load(self.DATA).boots
		there = lab_judge.layout(image.events(), 'image')
		here = lab_judge.layout(restore.events(), 'restore')
		self.assertEqual(there['text'] & 0xfff, 0)
		self.assertEqual(there['page_offset_base'] % (1 << 30), 0)
		self.assertNotEqual(here['text'], there['text'])
		with self.assertRaisesRegex(LabError, 'no layout report'):
			lab_judge.layout(restore.events(), 'image')
		self.assertEqual(set(image.phases()),
				 set(lab_record.IMAGE_PHASES))
		stamps = restore.phases()
		self.assertEqual(set(stamps), set(lab_record.RESTORE_PHASES) |
				 set(lab_record.RESUMED_PHASES))
		self.assertLess(stamps['load'], stamps['loaded'])

	def test_malformed_layout_is_a_lab_error(self) -> None:
		events = lab_protocol.parse_log(['HIBLAB layout boot=image '
						 'text=0xffffffff8e631b8['])
		with self.assertRaisesRegex(LabError, 'malformed layout'):
			lab_judge.layout(events, 'image')


class RecordTest(unittest.TestCase):
	"""What the judge does with records that are not whole."""

	def copy(self, capture: str) -> Path:
		tmp = Path(self.enterContext(tempfile.TemporaryDirectory()))
		shutil.copytree(CYCLES / capture, tmp / capture)
		return tmp / capture

	def test_a_record_that_stops_early_is_not_a_pass(self) -> None:
		record = lab_record.load(CYCLES / '6.12-smoke')
		record.boots = record.boots[:1]
		v = lab_judge.judge_cycle(lab_scenarios.SCENARIOS['smoke'], record)
		self.assertEqual(v[-1].name, 'cycle')
		self.assertEqual(v[-1].status, FAIL)

	def test_the_runners_error_is_a_verdict(self) -> None:
		record = lab_record.load(CYCLES / '6.12-smoke')
		record.boots = record.boots[:1]
		record.error = 'gdb: cannot connect'
		v = lab_judge.judge_cycle(lab_scenarios.SCENARIOS['smoke'], record)
		self.assertEqual(v[-1], Verdict('cycle', FAIL,
						'gdb: cannot connect'))

	def test_no_layout_from_the_image_kernel(self) -> None:
		d = self.copy('6.12-smoke')
		log = d / 'boot1-image-agent.log'
		log.write_text(''.join(l for l in log.read_text().splitlines(True)
				       if 'HIBLAB layout' not in l))
		v = lab_judge.judge_cycle(lab_scenarios.SCENARIOS['smoke'],
					  lab_record.load(d))
		self.assertEqual(v, [Verdict('cycle', FAIL, 'no layout report '
					     'from the image kernel')])

	def test_a_record_from_before_records_is_one_clear_error(self) -> None:
		d = self.copy('6.12-smoke')
		(d / lab_record.RECORD).unlink()
		with self.assertRaisesRegex(LabError, 'not a cycle record'):
			lab_record.load(d)

	def test_same_kaslr_slot_is_repeated(self) -> None:
		s = lab_scenarios.SCENARIOS['smoke']
		d = self.copy('6.12-smoke')
		self.assertFalse(lab_judge.same_kaslr_slot(s, lab_record.load(d)))
		image = lab_judge.layout(lab_record.load(d).boots[0].events(),
					 'image')
		log = d / 'boot2-restore-agent.log'
		log.write_text('\n'.join(
			'HIBLAB layout boot=restore ' + ' '.join(
				f'{k}={v:#x}' for k, v in image.items())
			if 'HIBLAB layout' in l else l
			for l in log.read_text().splitlines()) + '\n')
		record = lab_record.load(d)
		self.assertTrue(lab_judge.same_kaslr_slot(s, record))
		v = {x.name: x for x in lab_judge.judge_cycle(s, record)}
		self.assertEqual(v['kaslr'].status, SKIP)


def vcpu(cpu: int, state: str, function: str = 'hlt_play_dead',
	 hlt_before: bool = True, hlt=None, in_text: bool = True
	 ) -> VCpuRecord:
	return VCpuRecord(cpu, 0xffffffff82000109, state,
			  state == 'halted' if hlt is None else hlt, in_text,
			  f'{function}+0x9' if in_text else '',
			  function if in_text else '', hlt_before)


class ParkingTest(unittest.TestCase):
	"""Which vCPU positions at swsusp_arch_resume are safe."""

	def test_gdb_and_hmp_must_agree_on_halted(self) -> None:
		self.assertEqual(lab_judge.parking_place(
			vcpu(3, 'halted', hlt=False)),
			(False, 'CPU3 halted (gdb) but HLT=0 (info registers) in '
			 'hlt_play_dead+0x9'))
		self.assertEqual(lab_judge.parking_place(
			dataclasses.replace(vcpu(3, 'halted'), hlt=None)),
			(False, 'CPU3 halted (gdb) but not in `info registers -a` '
			 'at that RIP in hlt_play_dead+0x9'))

	def test_halted_after_hlt_in_a_parking_function(self) -> None:
		self.assertEqual(lab_judge.parking_place(vcpu(3, 'halted')),
				 (True, 'CPU3 halted in hlt_play_dead+0x9'))

	def test_mwait_loop_is_rejected_by_state_and_by_instruction(self) -> None:
		self.assertEqual(lab_judge.parking_place(
			vcpu(3, 'running', 'native_play_dead')),
			(False, 'CPU3 running in native_play_dead+0x9'))
		self.assertEqual(lab_judge.parking_place(
			vcpu(3, 'halted', 'native_play_dead', hlt_before=False)),
			(False, 'CPU3 halted in native_play_dead+0x9 (not after a '
			 'HLT)'))

	def test_other_functions_are_rejected(self) -> None:
		self.assertEqual(lab_judge.parking_place(
			vcpu(3, 'halted', 'do_idle')),
			(False, 'CPU3 halted in do_idle+0x9 (not a parking '
			 'function)'))

	def test_never_started_ap(self) -> None:
		c = dataclasses.replace(vcpu(2, 'halted', in_text=False), pc=0xfff0)
		self.assertEqual(lab_judge.parking_place(c), (
			True, 'CPU2 halted at 0xfff0 (outside the kernel): never '
			'started by it'))
		c = dataclasses.replace(vcpu(2, 'running', in_text=False),
					pc=0xfff0)
		self.assertFalse(lab_judge.parking_place(c)[0])

	def test_all_vcpus_must_be_seen(self) -> None:
		cpus = [vcpu(0, 'running', 'swsusp_arch_resume'),
			vcpu(1, 'halted')]
		v = lab_judge.parking('hlt-parking', cpus, 4)
		self.assertEqual(v.status, FAIL)
		self.assertIn('gdb saw 2 of 4 vCPUs', v.detail)
		self.assertEqual(lab_judge.parking('hlt-parking', [], 4).detail,
				 'the breakpoint at swsusp_arch_resume was not '
				 'reached')


class ResolveTest(unittest.TestCase):
	"""The runner's side: gdb's PCs in the restore kernel's terms."""

	def test_resolve_against_system_map_and_code(self) -> None:
		smap = lab_symbols.SystemMap.from_text(
			'ffffffff81000000 T _text\n'
			'ffffffff81000100 T hlt_play_dead\n'
			'ffffffff81000140 T native_play_dead\n'
			'ffffffff81e00000 T _etext\n')
		slide = 0x1000000

		class Code:
			"""hlt at hlt_play_dead+0x8 only."""
			asked: List[str] = []

			def hlt_before(self, func: str, link: int) -> bool:
				self.asked.append(func)
				return link - 1 == 0xffffffff81000108

			def around(self, func: str, link: int) -> tuple:
				return (f'> {link:x}: {func}',)
		code = Code()
		got = lab_cycle.resolve_vcpus([
			lab_gdb.VCpu(1, 'halted', 0xffffffff81000109 + slide, True),
			lab_gdb.VCpu(2, 'running', 0xffffffff81000160 + slide, False),
			lab_gdb.VCpu(3, 'halted', 0xfff0, True)], smap, slide, code)
		self.assertEqual(got[0], VCpuRecord(
			1, 0xffffffff82000109, 'halted', True, True,
			'hlt_play_dead+0x9', 'hlt_play_dead', True,
			('> ffffffff81000109: hlt_play_dead',)))
		self.assertEqual((got[1].symbol, got[1].hlt_before, got[1].code),
				 ('native_play_dead+0x20', False,
				  ('> ffffffff81000160: native_play_dead',)))
		self.assertEqual((got[2].in_text, got[2].symbol, got[2].code),
				 (False, '', ()))
		# Only halted vCPUs in the text are asked about a HLT.
		self.assertEqual(code.asked, ['hlt_play_dead'])


class DisassemblyTest(unittest.TestCase):
	def test_code_around_a_rip(self) -> None:
		code = lab_cycle.Disassembly(Path('/nonexistent/vmlinux'))
		code.insns['f'] = [(0x10, 'mwait %eax,%ecx'), (0x13, 'mov (%rsi),%eax'),
				   (0x15, 'hlt'), (0x16, 'jmp f+0x15')]
		self.assertEqual(code.around('f', 0x16, 1),
				 ('  15: hlt', '> 16: jmp f+0x15'))
		self.assertTrue(code.hlt_before('f', 0x16))
		self.assertFalse(code.hlt_before('f', 0x15))


class LabRunTest(unittest.TestCase):
	def test_summary_uses_each_runs_wall_time(self) -> None:
		s = lab_scenarios.SCENARIOS['smoke']
		run = lab_lab.LabRun([Verdict('s-02/cpus', FAIL, 'x')], [
			lab_record.ScenarioRun(s, Path('/r/s-01-1'),
					       lab_record.CycleRecord(
						       's-01', 'tcg', [], seconds=30.0)),
			lab_record.ScenarioRun(s, Path('/r/s-02-1'),
					       lab_record.CycleRecord(
						       's-02', 'tcg', [], seconds=50.0))])
		self.assertEqual(run.summary(), 'lab: 2 cycles, 1 failed (s-02); '
				 '80s in all, per cycle min 30s / mean 40s / max '
				 '50s')


if __name__ == '__main__':
	unittest.main()
