#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's judges, on captured records of real runs and on edge cases.

test_data/cycles/<capture>/ holds what a real run left in its results
directory (record.json, both boots' console and agent logs, the gdb
transcript; not the swap image).  test_data/cycles/README says which run
and mutant produced each.
"""

import dataclasses
import re
import shutil
import tempfile
import unittest
import unittest.mock
from pathlib import Path
from typing import Dict, List

from hiblab.errors import LabError
from hiblab.kernel import symbols
from hiblab.lab import cycle, gdb, judge, protocol, records, runner, scenarios
from hiblab.lab.records import VCpuRecord
from hiblab.verdict import FAIL, PASS, SKIP, Verdict

CYCLES = Path(__file__).parent / 'test_data' / 'cycles'


def judged(capture: str) -> Dict[str, Verdict]:
	record = records.load(CYCLES / capture)
	s = scenarios.SCENARIOS[record.scenario]
	return without_cpu_state(record, {v.name: v for v in
					  judge.judge_cycle(s, record)})


def judged_by(s: scenarios.Scenario, record: records.CycleRecord
	      ) -> Dict[str, Verdict]:
	"""A record judged by another scenario's expectations, by name."""
	return {v.name: v for v in judge.judge_cycle(s, record)}


def without_cpu_state(record: records.CycleRecord,
		      v: Dict[str, Verdict]) -> Dict[str, Verdict]:
	"""The verdicts of a capture whose agent held no registers yet (it
	came before cpu-state): that check must fail for want of a report,
	and is left out of the rest of its test."""
	if any(e.name == 'cpu-state' for b in record.boots for e in b.events()):
		return v
	for name in [n for n in v if n.endswith('cpu-state')]:
		assert v[name].status == FAIL and \
			v[name].detail == 'no cpu-state report from the agent', \
			v[name]
		del v[name]
	return v


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

	def test_the_registers_a_program_owns_came_back(self) -> None:
		v = judged('7.3-smoke-cpu-state')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertEqual(v['cpu-state'].detail,
				 'the hibernating task on CPU0: gpr9,ymm0-15,mxcsr,'
				 'fcw,pkru,fs_base,gs_base; workers on CPU0-3: gpr15,'
				 'ymm0-15,mxcsr,fcw,pkru,fs_base,gs_base')

	def test_the_hibernating_task_lost_its_pkru(self) -> None:
		# The topic before "Save and restore PKRU across suspend and
		# hibernation": what cpu-state-task-pkru-lost revives.
		v = judged('7.3-cpu-state-task-pkru-lost')
		self.assertEqual({n for n, x in v.items() if x.status == FAIL},
				 {'cpu-state'})
		self.assertEqual(v['cpu-state'].detail,
				 '1 register(s) differ: CPU0 task pkru: expected '
				 '0x1563e6a4, found 0x55555554')

	def test_debian_kernel_image_restored_by_ours(self) -> None:
		# Debian's 6.12.118 writes the image; its hibernating task
		# comes back with the restore kernel's PKRU, as our PKRU
		# patch says a kernel without it does.
		v = judged('6.12-debian-to-topic')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertEqual(v['cpu-state'].detail, 'known to be lost: task '
				 'pkru; lost: CPU0 task pkru: expected 0xc95e624, '
				 'found 0x55555554')
		# From its timestamp on: not the firmware's output before it.
		self.assertRegex(v['configured'].detail, r'^image: \[ *0\.0+\] '
				 r'Linux version 6\.12\.118\+deb12-amd64 '
				 r'\(debian-kernel@lists\.debian\.org\)')

	def test_our_image_restored_by_debians_kernel(self) -> None:
		v = judged('6.12-topic-to-debian')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertRegex(v['hlt-parking'].detail,
				 r'^CPU0 running in swsusp_arch_resume\+0x0, CPU1 '
				 r'halted in hlt_play_dead\+0x23')
		self.assertTrue(v['configured'].detail.startswith('restore: '))

	def test_the_debian_cells_fail_on_the_other_outcome(self) -> None:
		# Judged with the other cell's expectations: nothing lost where
		# PKRU must be lost, and Debian's banner from the wrong kernel.
		cells = scenarios.SCENARIOS
		ours = records.load(CYCLES / '6.12-topic-to-debian')
		v = judged_by(cells['debian-to-topic'], ours)
		self.assertEqual(v['cpu-state'].line(), 'FAIL cpu-state: known to '
				 'be lost: task pkru; lost: nothing')
		self.assertEqual(v['configured'].status, FAIL)
		self.assertIn('no "(debian-kernel@lists.debian.org)" from the '
			      'image kernel', v['configured'].detail)
		theirs = records.load(CYCLES / '6.12-debian-to-topic')
		v = judged_by(cells['topic-to-debian'], theirs)
		self.assertEqual(v['cpu-state'].line(), 'FAIL cpu-state: 1 '
				 'register(s) differ: CPU0 task pkru: expected '
				 '0xc95e624, found 0x55555554')

	def test_v2s_magic_bump_loses_debians_images(self) -> None:
		# The cell's own expectations on a restore kernel with v2's
		# RESTORE_MAGIC: it must fail, and does.
		record = records.load(CYCLES / '7.3-debian-to-v2-magic')
		v = judged_by(scenarios.SCENARIOS['debian-to-topic'], record)
		self.assertEqual(v['restored'].status, FAIL)
		self.assertIn('Failed to load image', v['restored'].detail)
		self.assertTrue(any('Unrecognized hibernate image header format!'
				    in l for l in record.boots[1].console))

	def test_cpu_state_judge_on_written_events(self) -> None:
		def ev(line: str) -> protocol.Event:
			return protocol.parse_line('HIBLAB ' + line)
		ok = 'cpu-state round=1 cpu={} who=worker regs=gpr15 bad=0'
		self.assertEqual(judge.cpu_state('cpu-state', [
			ev(ok.format(0)), ev(ok.format(1)), ev(ok.format(3))]).detail,
			'workers on CPU0-1,3: gpr15')
		silent = judge.cpu_state('cpu-state', [ev(
			'cpu-state round=1 cpu=2 who=worker regs=unanswered bad=0')])
		self.assertEqual(silent.line(), 'FAIL cpu-state: 0 register(s) '
				 'differ: the worker on CPU2 did not answer')
		self.assertEqual(judge.cpu_state('cpu-state', []).detail,
				 'no cpu-state report from the agent')

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

	def test_five_level_paging_proven_from_the_guest(self) -> None:
		# la57 on 6.12 with the la57 variant (CONFIG_X86_5LEVEL=y).
		v = judged('6.12-la57')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertEqual(v['paging'].detail,
				 '5-level: CR4=0x351eb0 (LA57) on CPU0 at '
				 'swsusp_arch_resume, page_offset_base '
				 '0xff46321500000000 (image, 5-level range) -> '
				 '0xff3c3a1ec0000000 (restore, 5-level range)')

	def test_four_level_paging_proven_from_the_guest(self) -> None:
		# no5lvl on the same build and CPU: 4-level, as claimed.
		v = judged('6.12-no5lvl')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertRegex(v['paging'].detail,
				 r'^4-level: CR4=0x350eb0 \(no LA57\) on CPU0 ')

	def test_a_four_level_run_fails_a_five_level_claim(self) -> None:
		# The no5lvl run judged as la57: CR4.LA57 clear and both
		# page_offset_bases in the 4-level range.
		record = records.load(CYCLES / '6.12-no5lvl')
		v = without_cpu_state(
			record, judged_by(scenarios.SCENARIOS['la57'], record))
		self.assertEqual(v['paging'].status, FAIL)
		self.assertEqual(v['paging'].detail,
				 'want 5-level paging, got: CR4=0x350eb0 (no LA57) on '
				 'CPU0 at swsusp_arch_resume, page_offset_base '
				 '0xffff8f6200000000 (image, 4-level range) -> '
				 '0xffff99c740000000 (restore, 4-level range)')
		self.assertEqual({n for n, x in v.items() if x.status == FAIL},
				 {'paging'})
		# And the other way round.
		record = records.load(CYCLES / '6.12-la57')
		v = judged_by(scenarios.SCENARIOS['no5lvl'], record)
		self.assertEqual(v['paging'].status, FAIL)

	def test_the_plain_7_3_build_runs_five_levels(self) -> None:
		# 7.3 always builds 5-level support: la57 runs its plain build,
		# no5lvl turns it off on the same CPU.
		v = judged('7.3-la57')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertRegex(v['paging'].detail, r'^5-level: CR4=0x351eb0 '
				 r'\(LA57\) .* 0xff2a9db740000000 \(restore, '
				 r'5-level range\)$')
		v = judged('7.3-no5lvl')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertIn('4-level: CR4=0x350eb0 (no LA57)', v['paging'].detail)

	def test_a_paging_mode_change_is_refused_each_level_proven(self
								   ) -> None:
		# 6.12 + the paging-levels patch: each kernel's level from its
		# page_offset_base (no gdb stop in a refusal), then the refusal.
		v = judged('6.12-paging-5-to-4')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertEqual(v['paging'].detail,
				 '5-level image, 4-level restore kernel: '
				 'page_offset_base 0xff3985b240000000 (image, 5-level '
				 'range) -> 0xffff8fa400000000 (restore, 4-level '
				 'range)')
		self.assertIn('Hibernate image uses 5-level paging, but this '
			      'kernel uses 4-level paging', v['refused'].detail)
		v = judged('6.12-paging-4-to-5')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertRegex(v['paging'].detail, r'^4-level image, 5-level '
				 r'restore kernel: .*\(restore, 5-level range\)$')

	def test_without_the_level_check_the_guest_resets_silently(self
								   ) -> None:
		# mutant header-pgtable-levels-check-removed: the image is read,
		# the non-boot CPUs go down, then QEMU exits 0 (a reset under
		# -no-reboot) without a word; the verdict quotes that tail.
		v = judged('6.12-paging-levels-check-removed')
		self.assertEqual(statuses(v), {'image-saved': PASS,
					       'paging': PASS, 'refused': FAIL})
		self.assertIn('neither refused the image nor resumed (qemu exit '
			      '0); console tail: ', v['refused'].detail)
		self.assertIn('smpboot: CPU 1 is now offline', v['refused'].detail)

	def test_a_header_with_a_moved_jump_target_is_refused(self) -> None:
		# 7.3 + patch 8: jump_address_phys moved by 2M + 4K on the disk;
		# the restore kernel names the check and boots on.
		v = judged('7.3-corrupt-jump-phys')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertIn('Hibernate image header: jump address '
			      '0xffffffff9c118000 and its physical address 0x3319000 '
			      'differ below 2M', v['refused'].detail)
		# Without patch 8's check (mutant header-address-check-removed)
		# the image loads and the guest resets without a word.
		v = judged('7.3-address-check-removed')
		self.assertEqual(statuses(v)['refused'], FAIL)
		self.assertIn('neither refused the image nor resumed (qemu exit '
			      '0); console tail: ', v['refused'].detail)
		self.assertIn('smpboot: CPU 1 is now offline', v['refused'].detail)

	def test_a_refusal_run_judged_as_the_other_direction_fails(self
								   ) -> None:
		# The 5-to-4 run under the 4-to-5 claim: both kernels' levels
		# and the refusal message are wrong for it.
		record = records.load(CYCLES / '6.12-paging-5-to-4')
		v = judged_by(scenarios.SCENARIOS['paging-4-to-5'], record)
		self.assertEqual(v['paging'].status, FAIL)
		self.assertTrue(v['paging'].detail.startswith(
			'want 4-level image, 5-level restore kernel paging, got: '))
		self.assertEqual(v['refused'].status, FAIL)

	def test_a_refusal_the_restore_kernel_announces(self) -> None:
		# A capture of an earlier patch 0008 on 6.12 that refused the
		# restore when a kicked CPU did not answer (variant
		# mainline-core-online-mwait-deaf; both are retired): CPU 3 never
		# left MWAIT, the restore was refused and the kernel booted on.  It keeps the judge's refusal and restore_says honest: the
		# announced line is expected there, not a splat.
		deaf = scenarios.Scenario(
			'offline-restore-mwait-deaf', 'a refused restore',
			offline_restore='3', bases=('6.12',), hlt_proof=False,
			refusal='An offline CPU did not leave MWAIT, not restoring',
			restore_says=('CPU3 is stuck in mwait_play_dead()',))
		record = records.load(CYCLES / '6.12-offline-restore-mwait-deaf')
		v = judged_by(deaf, record)
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertIn('x86/pm: An offline CPU did not leave MWAIT, not '
			      'restoring the image', v['refused'].detail)
		self.assertIn('CPU3 is stuck in mwait_play_dead()',
			      v['configured'].detail)
		unsaid = judged_by(dataclasses.replace(deaf, restore_says=()),
				   record)
		self.assertEqual(unsaid['fresh-boot'].status, FAIL)
		self.assertIn('CPU3 is stuck', unsaid['fresh-boot'].detail)
		# Where every CPU must answer, the refusal is a failed restore.
		v = judged_by(scenarios.SCENARIOS['offline-restore-mainline'],
			      record)
		self.assertEqual(v['restored'].status, FAIL)

	def test_paging_levels_across_debians_kernel_reset(self) -> None:
		# 7.3: Debian's kernel on one side of a paging-level change.
		# Each cell loads the image, and the machine resets at the jump.
		for capture, why in (
			('7.3-debian-5-to-topic-4', scenarios.DEBIAN_WROTE_NO_LEVELS),
			('7.3-topic-5-to-debian-4', scenarios.DEBIAN_READS_NO_LEVELS),
			('7.3-topic-4-to-debian-5', scenarios.DEBIAN_READS_NO_LEVELS)):
			v = judged(capture)
			self.assertEqual(set(statuses(v).values()), {PASS}, capture)
			self.assertEqual(list(v), ['image-saved', 'paging',
						   'configured', 'reset'])
			self.assertRegex(v['reset'].detail, r'^\[ *[\d.]+\] PM: '
					 r'hibernation: Read \d+ kbytes in .*, then the '
					 r'machine reset at the jump into the image, as '
					 r'known: ' + re.escape(why) + '$')

	def test_a_cell_known_to_reset_fails_on_anything_else(self) -> None:
		cell = scenarios.SCENARIOS['topic-5-to-debian-4']
		# Restored: the expectation is out of date.
		v = judged_by(dataclasses.replace(cell, paging=0, paging_restore=0,
						  restore_says=()),
			      records.load(CYCLES / '6.12-smoke'))
		self.assertEqual(v['reset'].line(), 'FAIL reset: the image was '
				 'restored; the cell expects a reset: ' +
				 scenarios.DEBIAN_READS_NO_LEVELS)
		# Refused: the restore kernel recovered.
		v = judged_by(dataclasses.replace(
			scenarios.SCENARIOS['debian-to-topic'], image_says=(),
			resets='why'), records.load(CYCLES / '7.3-debian-to-v2-magic'))
		self.assertEqual(v['reset'].status, FAIL)
		self.assertIn('Failed to load image', v['reset'].detail)
		# Hung (no exit) or crashed before the jump: not the known reset.
		record = records.load(CYCLES / '7.3-topic-5-to-debian-4')
		hung = dataclasses.replace(record.boots[1], exit_code=None)
		record.boots[1] = hung
		v = judged_by(cell, record)
		self.assertEqual(v['reset'].status, FAIL)
		self.assertTrue(v['reset'].detail.startswith(
			'no image read and reset at the jump (qemu exit None); '))
		record = records.load(CYCLES / '7.3-topic-5-to-debian-4')
		record.boots[1].console.append('[   11.0] Kernel panic - not '
					       'syncing: Fatal exception')
		v = judged_by(cell, record)
		self.assertEqual(v['reset'].status, FAIL)
		self.assertIn('Kernel panic', v['reset'].detail)

	def test_a_record_without_cr4_proves_no_level(self) -> None:
		# 6.12-smoke predates CR4 in the record.
		record = records.load(CYCLES / '6.12-smoke')
		v = judged_by(scenarios.SCENARIOS['no5lvl'], record)
		self.assertEqual(v['paging'].status, FAIL)
		self.assertIn('no CR4', v['paging'].detail)

	def test_an_uncompressed_image_with_a_damaged_page_loads(self) -> None:
		# nocompress-corrupt on 6.12: no CRC32 without compression, the
		# damaged page of the pattern is restored, 2 words wrong.
		record = records.load(CYCLES / '6.12-nocompress-corrupt')
		self.assertIn('16 bytes in the middle of pattern page 2969 '
			      'inverted', record.corruption)
		v = judged('6.12-nocompress-corrupt')
		self.assertEqual(set(statuses(v).values()), {PASS})
		self.assertIn('restore: [    1.817487] PM: Loading image data '
			      'pages (97279 pages)...', v['configured'].detail)
		self.assertIn('2 bad words (first at 10102784)',
			      v['pattern'].detail)
		self.assertNotIn('refused', v)
		# The damaged words are the judge's business: none, or 3, is
		# a FAIL.
		for damaged in (0, 3):
			s = dataclasses.replace(
				scenarios.SCENARIOS['nocompress-corrupt'],
				damaged_words=damaged)
			got = {w.name: w.status for w in judge.judge_cycle(s, record)}
			self.assertEqual(got['pattern'], FAIL)

	def test_an_image_found_and_not_loaded_says_why(self) -> None:
		# swap-nocompress-pfn-list-unwaited on 7.3: the PFN list is
		# parsed before its reads complete; the kernel gives up with
		# -EFAULT and boots on, which the agent reports as no image.
		v = judged('7.3-nocompress-pfn-list-unwaited')
		self.assertEqual(v['restored'].status, FAIL)
		self.assertRegex(v['restored'].detail, r'found an image and did '
				 r'not load it: .*Memory map mismatch.*Failed to load '
				 r'image, recovering.*resume failed \(-14\)')

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
		cpus = gdb.parse_threads(
			(self.DATA / 'gdb-transcript.txt').read_text())
		self.assertEqual([c.cpu for c in cpus], [0, 1, 2, 3])
		self.assertEqual([c.state for c in cpus[1:]], ['halted'] * 3)
		# QEMU's `monitor info registers -a` through the same gdb.
		self.assertEqual([c.hlt for c in cpus], [False, True, True, True])
		recorded = records.load(self.DATA).boots[1].vcpus
		self.assertEqual([(c.cpu, c.pc, c.state, c.hlt) for c in cpus],
				 [(c.cpu, c.pc, c.state, c.hlt) for c in recorded])

	def test_layouts_and_phases(self) -> None:
		image, restore = records.load(self.DATA).boots
		there = judge.layout(image.events(), 'image')
		here = judge.layout(restore.events(), 'restore')
		self.assertEqual(there['text'] & 0xfff, 0)
		self.assertEqual(there['page_offset_base'] % (1 << 30), 0)
		self.assertNotEqual(here['text'], there['text'])
		with self.assertRaisesRegex(LabError, 'no layout report'):
			judge.layout(restore.events(), 'image')
		self.assertEqual(set(image.phases()),
				 set(records.IMAGE_PHASES))
		stamps = restore.phases()
		self.assertEqual(set(stamps), set(records.RESTORE_PHASES) |
				 set(records.RESUMED_PHASES))
		self.assertLess(stamps['load'], stamps['loaded'])

	def test_malformed_layout_is_a_lab_error(self) -> None:
		events = protocol.parse_log(['HIBLAB layout boot=image '
						 'text=0xffffffff8e631b8['])
		with self.assertRaisesRegex(LabError, 'malformed layout'):
			judge.layout(events, 'image')


class RecordTest(unittest.TestCase):
	"""What the judge does with records that are not whole."""

	def copy(self, capture: str) -> Path:
		tmp = Path(self.enterContext(tempfile.TemporaryDirectory()))
		shutil.copytree(CYCLES / capture, tmp / capture)
		return tmp / capture

	def test_a_record_that_stops_early_is_not_a_pass(self) -> None:
		record = records.load(CYCLES / '6.12-smoke')
		record.boots = record.boots[:1]
		v = judge.judge_cycle(scenarios.SCENARIOS['smoke'], record)
		self.assertEqual(v[-1].name, 'cycle')
		self.assertEqual(v[-1].status, FAIL)

	def test_the_runners_error_is_a_verdict(self) -> None:
		record = records.load(CYCLES / '6.12-smoke')
		record.boots = record.boots[:1]
		record.error = 'gdb: cannot connect'
		v = judge.judge_cycle(scenarios.SCENARIOS['smoke'], record)
		self.assertEqual(v[-1], Verdict('cycle', FAIL,
						'gdb: cannot connect'))

	def test_no_layout_from_the_image_kernel(self) -> None:
		d = self.copy('6.12-smoke')
		log = d / 'boot1-image-agent.log'
		log.write_text(''.join(l for l in log.read_text().splitlines(True)
				       if 'HIBLAB layout' not in l))
		v = judge.judge_cycle(scenarios.SCENARIOS['smoke'],
					  records.load(d))
		self.assertEqual(v, [Verdict('cycle', FAIL, 'no layout report '
					     'from the image kernel')])

	def test_a_record_from_before_records_is_one_clear_error(self) -> None:
		d = self.copy('6.12-smoke')
		(d / records.RECORD).unlink()
		with self.assertRaisesRegex(LabError, 'not a cycle record'):
			records.load(d)

	def test_a_stray_int3_before_the_agent_is_a_text_poke_race(self) -> None:
		record = records.load(CYCLES / '6.12-topic-to-debian-int3')
		self.assertEqual(judge.text_poke_race(record), 'boot2-restore: '
				 '[    1.316130] Oops: int3: 0000 [#1] PREEMPT SMP PTI, '
				 '[    1.316823] RIP: 0010:enqueue_timer+0xa5/0x100')
		v = judged_by(scenarios.SCENARIOS['topic-to-debian'], record)
		self.assertEqual(v['restore-boot'].status, FAIL)
		# Not a race: a clean cycle, a panic after the agent started, an
		# int3 oops once the agent has spoken.
		for capture in ('6.12-smoke', '6.12-panic-before-restore-image'):
			self.assertEqual(judge.text_poke_race(
				records.load(CYCLES / capture)), '', capture)
		d = self.copy('6.12-smoke')
		with (d / 'boot2-restore-console.log').open('a') as f:
			f.write('[   9.0] Oops: int3: 0000 [#1] PREEMPT SMP PTI\n')
		self.assertEqual(judge.text_poke_race(records.load(d)), '')

	def test_same_kaslr_slot_is_repeated(self) -> None:
		s = scenarios.SCENARIOS['smoke']
		d = self.copy('6.12-smoke')
		self.assertFalse(judge.same_kaslr_slot(s, records.load(d)))
		image = judge.layout(records.load(d).boots[0].events(),
					 'image')
		log = d / 'boot2-restore-agent.log'
		log.write_text('\n'.join(
			'HIBLAB layout boot=restore ' + ' '.join(
				f'{k}={v:#x}' for k, v in image.items())
			if 'HIBLAB layout' in l else l
			for l in log.read_text().splitlines()) + '\n')
		record = records.load(d)
		self.assertTrue(judge.same_kaslr_slot(s, record))
		v = judged_by(s, record)
		self.assertEqual(v['kaslr'].status, SKIP)


class SaysTest(unittest.TestCase):
	def boot(self, name: str, lines: List[str]) -> records.BootRecord:
		b = records.BootRecord(name, name.split('-')[1], 0, [], None, 0,
					  {}, results=Path('/r'))
		b.console = lines
		return b

	def test_both_kernels_must_say_it(self) -> None:
		pti = ('Kernel/User page tables isolation: enabled',)
		line = '[    0.010000] Kernel/User page tables isolation: enabled'
		image = self.boot('boot1-image', [line])
		v = judge.says('configured', pti, image,
				   self.boot('boot2-restore', [line]))
		self.assertEqual(v.status, PASS)
		self.assertEqual(v.detail, f'image: {line.strip()}; restore: '
				 f'{line.strip()}')
		v = judge.says('configured', pti, image,
				   self.boot('boot2-restore', ['pti=off']))
		self.assertEqual(v.status, FAIL)
		self.assertEqual(v.detail, f'no "{pti[0]}" from the restore kernel '
				 '(/r/boot2-restore-console.log)')


class ResolveTest(unittest.TestCase):
	"""The runner's side: gdb's PCs in the restore kernel's terms."""

	def test_resolve_against_system_map_and_code(self) -> None:
		smap = symbols.SystemMap.from_text(
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
		got = cycle.resolve_vcpus([
			gdb.VCpu(1, 'halted', 0xffffffff81000109 + slide, True),
			gdb.VCpu(2, 'running', 0xffffffff81000160 + slide, False),
			gdb.VCpu(3, 'halted', 0xfff0, True)], smap, slide, code)
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
		code = cycle.Disassembly(Path('/nonexistent/vmlinux'))
		code.insns['f'] = [(0x10, 'mwait %eax,%ecx'), (0x13, 'mov (%rsi),%eax'),
				   (0x15, 'hlt'), (0x16, 'jmp f+0x15')]
		self.assertEqual(code.around('f', 0x16, 1),
				 ('  15: hlt', '> 16: jmp f+0x15'))
		self.assertTrue(code.hlt_before('f', 0x16))
		self.assertFalse(code.hlt_before('f', 0x15))


class LabRunTest(unittest.TestCase):
	def test_summary_uses_each_runs_wall_time(self) -> None:
		s = scenarios.SCENARIOS['smoke']
		run = runner.LabRun([Verdict('s-02/cpus', FAIL, 'x')], [
			records.ScenarioRun(s, Path('/r/s-01-1'),
					       records.CycleRecord(
						       's-01', 'tcg', [], seconds=30.0)),
			records.ScenarioRun(s, Path('/r/s-02-1'),
					       records.CycleRecord(
						       's-02', 'tcg', [], seconds=50.0))])
		self.assertEqual(run.summary(), 'lab: 2 cycles, 1 failed (s-02); '
				 '80s in all, per cycle min 30s / mean 40s / max '
				 '50s')


if __name__ == '__main__':
	unittest.main()
