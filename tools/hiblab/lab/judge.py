# SPDX-License-Identifier: GPL-2.0
"""The verdicts of one lab cycle, from its records alone.

Pure functions: a Scenario and a records.CycleRecord in, Verdicts out;
no processes, no files.  lab.cycle calls the per-boot judges after each boot
only to learn whether the next boot makes sense; the verdicts a run reports
are judge_cycle()'s, over the record as written to disk, so captured runs
(lab/test_data/cycles/) are judged exactly as live ones.
"""

import re
from typing import Dict, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.lab import protocol, scenarios
from hiblab.lab.protocol import Event
from hiblab.lab.records import BootRecord, CycleRecord
from hiblab.lab.scenarios import Scenario, pattern_mb
from hiblab.lab.positions import paging, parking
from hiblab.verdict import FAIL, PASS, SKIP, Verdict, check

# Every check a cycle reports; with several cycles, those after the image
# boot are named cycle<N>/<check>.  gauntlet.checknames builds on this list.
CHECKS = ('cycle', 'image-boot', 'image-saved', 'save-refused',
	  'restore-boot', 'refused', 'fresh-boot', 'swap-reusable',
	  'hlt-parking', 'paging', 'configured', 'restored', 'kaslr',
	  'pattern', 'tmpfs', 'cpus', 'workers', 'cpu-state', 'trace',
	  'no-splat')

Judged = Tuple[List[Verdict], bool]	# verdicts, and whether to go on


# What a restore kernel prints when it found an image and did not load
# it (the agent's no-image event cannot tell that from no image at all).
LOAD_FAILED = re.compile(r'PM: (?:hibernation: )?(?:Failed to load image|'
			 r'resume failed|\[Firmware Bug\]: Memory map mismatch)')


def no_resume(lines: List[str]) -> str:
	"""Why a restore kernel resumed nothing, from its console."""
	said = [line.strip() for line in lines if LOAD_FAILED.search(line)]
	if not said:
		return 'the restore kernel found no image'
	return ('the restore kernel found an image and did not load it: ' +
		' | '.join(said[:3]))


# The restore kernel read the whole image (swsusp_show_speed()).
IMAGE_READ = re.compile(r'Read \d+ kbytes in ')


def reset_as_known(name: str, s: Scenario, boot: BootRecord) -> Verdict:
	"""A cell known to reset (Scenario.resets): the restore kernel read
	the image and started the restore, and the machine then reset
	without a word from either kernel.  A restore or a refusal means the
	expectation is out of date."""
	lines, events, rc = boot.console, boot.events(), boot.exit_code
	why = f'the cell expects a reset: {s.resets}'
	if protocol.first(events, 'resumed'):
		return Verdict(name, FAIL, f'the image was restored; {why}')
	if protocol.first(events, 'no-image'):
		return Verdict(name, FAIL, f'{no_resume(lines)}; {why}')
	read = next((l.strip() for l in lines if IMAGE_READ.search(l)), '')
	found = protocol.splats(lines)
	if rc is None or rc != 0 or not read or found or \
	   not protocol.first(events, 'resuming'):
		return fail_with_tail(name, 'no image read and reset at the jump '
				      f'(qemu exit {rc}' + (f', {found[0]}' if found
							    else '') +
				      f'); {why}', boot)
	return Verdict(name, PASS, f'{console_line(read)}, then the machine '
		       f'reset at the jump into the image, as known: {s.resets}')


def prefix(s: Scenario, n: int) -> str:
	return f'cycle{n}/' if s.cycles > 1 else ''


def fail_with_tail(name: str, what: str, boot: BootRecord) -> Verdict:
	tail = ' | '.join(l.strip() for l in
			  (boot.console[-8:] or boot.agent[-8:]))
	# A panic's register dump fills the tail; name the panic itself.
	crash = next((l.strip() for l in boot.console if 'Kernel panic' in l),
		     '')
	return Verdict(name, FAIL, f'{what}; ' + (f'{crash}; ' if crash else '') +
		       f'console tail: {tail} (console: {boot.console_file})')


def layout(events: List[Event], kernel: str) -> Dict[str, int]:
	"""The agent's layout report; raises LabError if it is malformed."""
	for e in events:
		if e.name == 'layout' and e.get('boot') == kernel:
			try:
				return {k: int(v, 0) for k, v in e.fields.items()
					if k != 'boot'}
			except ValueError as err:
				raise LabError(f'malformed layout line {e.line} from the '
					       f'{kernel} kernel: {err}') from err
	raise LabError(f'no layout report from the {kernel} kernel')


def ready_event(boot: BootRecord) -> Optional[Event]:
	return protocol.parse_line(boot.ready) if boot.ready else None


# A printk line's timestamp: the kernel's first line shares the serial
# line with the firmware's and the boot loader's output before it.
PRINTK_TIME = re.compile(r'\[\s*\d+\.\d+\] ')


def console_line(line: str) -> str:
	"""A console line as the kernel printed it, from its timestamp on."""
	m = PRINTK_TIME.search(line)
	return (line[m.start():] if m else line).strip()


def says(name: str, needles: Tuple[str, ...], image: BootRecord,
	 restore: BootRecord, image_only: Tuple[str, ...] = (),
	 restore_only: Tuple[str, ...] = ()) -> Verdict:
	"""Each kernel printed each of the scenario's console lines, and
	its own (*_only)."""
	found, missing = [], []
	for kernel, boot, own in (('image', image, image_only),
				  ('restore', restore, restore_only)):
		for n in needles + own:
			hit = next((console_line(l) for l in boot.console
				    if n in l), '')
			if hit:
				found.append(f'{kernel}: {hit}')
			else:
				missing.append(f'no "{n}" from the {kernel} kernel '
					       f'({boot.console_file})')
	return check(name, not missing, '; '.join(missing or found))


def cpu_list(cpus: List[int]) -> str:
	"""'0-3,5' for [0, 1, 2, 3, 5]."""
	out, run = [], []
	for c in sorted(cpus):
		if run and c == run[-1] + 1:
			run.append(c)
			continue
		if run:
			out.append(f'{run[0]}-{run[-1]}' if len(run) > 1 else
				   str(run[0]))
		run = [c]
	if run:
		out.append(f'{run[0]}-{run[-1]}' if len(run) > 1 else str(run[0]))
	return ','.join(out)


def cpu_state(name: str, events: List[Event],
	      lost: Tuple[str, ...] = ()) -> Verdict:
	"""Every holder got back the registers it held across the
	hibernation: the hibernating task and the worker on each CPU
	(cpu-state, cpu-state-bad).  lost: the registers ('task pkru') an
	image kernel without a fix is known to lose; then exactly those must
	differ, which shows the bug is there and nothing else went wrong."""
	states = [e for e in events if e.name == 'cpu-state']
	if not states:
		return check(name, False, 'no cpu-state report from the agent')
	silent = [e for e in states if e.get('regs') == 'unanswered']
	bad = [e for e in events if e.name == 'cpu-state-bad']
	count = sum(e.int('bad') for e in states if e.get('bad', '').isdigit())
	if lost:
		got = sorted({f'{e.get("who")} {e.get("reg")}' for e in bad})
		found = '; '.join(f'CPU{e.get("cpu")} {e.get("who")} '
				  f'{e.get("reg")}: expected {e.get("expected")}'
				  f', found {e.get("found")}' for e in bad[:3])
		return check(name, not silent and count == len(bad) and
			     got == sorted(lost), f'known to be lost: '
			     f'{", ".join(lost)}; lost: {found or "nothing"}' +
			     ('; a worker did not answer' if silent else ''))
	if silent or bad or count:
		why = [f'CPU{e.get("cpu")} {e.get("who")} {e.get("reg")}: '
		       f'expected {e.get("expected")}, found {e.get("found")}'
		       for e in bad[:3]]
		why += [f'the worker on CPU{e.get("cpu")} did not answer'
			for e in silent]
		return check(name, False, f'{count} register(s) differ'
			     + (': ' + '; '.join(why) if why else ''))
	groups: Dict[Tuple[str, str], List[int]] = {}
	for e in states:
		groups.setdefault((e.get('who'), e.get('regs')), []).append(
			e.int('cpu'))
	return check(name, True, '; '.join(
		f'{"the hibernating task" if who == "task" else "workers"} on '
		f'CPU{cpu_list(cpus)}: {regs}'
		for (who, regs), cpus in sorted(groups.items(),
						key=lambda g: g[0][0] != 'task')))


def data_checks(pre: str, s: Scenario, events: List[Event],
		lines: List[str], both: bool) -> List[Verdict]:
	"""What the image kernel reports after coming back, and its log."""
	v = []
	p = protocol.first(events, 'pattern-check')
	want = pattern_mb(s) << 20
	# Damage to an image that is restored anyway (nocompress) shows here.
	v.append(check(pre + 'pattern', p is not None and
		       p.int('bad_words') == s.damaged_words and
		       p.int('bytes') >= want,
		       f'{p.int("bytes") >> 20} MiB, {p.get("bad_words")} bad '
		       f'words (first at {p.get("first_bad")})' if p else
		       'no pattern-check'))
	t = protocol.first(events, 'tmpfs-check')
	v.append(check(pre + 'tmpfs', t is not None and t.int('bad_words') == 0,
		       f'{t.get("bad_words")} bad words' if t else
		       'no tmpfs-check'))
	c = protocol.first(events, 'cpus-check')
	v.append(check(pre + 'cpus', c is not None and
		       c.get('before') == c.get('after'),
		       f'online {c.get("before")} -> {c.get("after")}' if c else
		       'no cpus-check'))
	w = [e for e in events if e.name == 'workers-check']
	v.append(check(pre + 'workers', bool(w) and w[-1].int('stuck') == 0,
		       f'{w[-1].get("running")} running, {w[-1].get("stuck")} '
		       'stuck' if w else 'no workers-check'))
	v.append(cpu_state(pre + 'cpu-state', events, s.lost_registers))
	if s.trace:
		tr = protocol.first(events, 'trace-check')
		# One machine_suspend begin per earlier round, and this round's
		# begin and end at least.
		v.append(check(pre + 'trace', tr is not None and
			       tr.int('machine_suspend') >= 2,
			       f'{tr.get("machine_suspend")} machine_suspend '
			       'events in the resumed kernel\'s trace buffer'
			       if tr else 'no trace-check'))
	found = protocol.splats(lines)
	v.append(check(pre + 'no-splat', not found, found[0] if found else
		       'no WARN/BUG/lockdep in ' +
		       ('either boot' if both else 'this boot')))
	return v


def saved(name: str, boot: BootRecord, events: List[Event]) -> Judged:
	"""The kernel hibernated and QEMU powered off."""
	h = [e for e in events if e.name == 'hibernating']
	r = [e for e in events if e.name == 'resumed']
	rc = boot.exit_code
	if h and r and r[-1].line > h[-1].line:
		return [check(name, False, 'the save failed and the system '
			      f'thawed ({r[-1].get("ret")})')], False
	if rc is None:
		return [fail_with_tail(name, 'no power-off within '
				       f'{boot.deadline:.0f}s', boot)], False
	if not h:
		return [fail_with_tail(name, 'the image kernel did not '
				       'hibernate again', boot)], False
	ok = rc == 0
	return [check(name, ok, f'{int(h[-1].get("bytes")) >> 20} MiB '
		      f'pattern, powered off (qemu exit {rc})')], ok


def save_failed(s: Scenario, boot: BootRecord, events: List[Event]
		) -> List[Verdict]:
	"""The save must fail cleanly: thawed, nothing lost."""
	r = protocol.first(events, 'resumed')
	rc = boot.exit_code
	if r is None or rc is None or not protocol.first(events, 'done'):
		return [fail_with_tail('save-refused', 'the image kernel did '
				       'not come back from the failed save '
				       f'(qemu exit {rc})', boot)]
	why = next((l.strip() for l in boot.console
		    if 'PM:' in l and ('fail' in l.lower() or
				       'swap' in l.lower())),
		   'no PM: message about the failure')
	return [check('save-refused', r.get('ret') == s.save_fails,
		      f'write to /sys/power/state returned {r.get("ret")} '
		      f'(want {s.save_fails}); {why}')] + \
		data_checks('', s, events, boot.console, True)


def judge_image_boot(s: Scenario, boot: BootRecord) -> Judged:
	"""Boot 1: the agent hibernated (or the save failed as wanted)."""
	e = ready_event(boot)
	if e is None or e.name != 'hibernating':
		return [fail_with_tail('image-boot', 'no "hibernating" from the '
				       'agent' if e is None else boot.ready.strip(),
				       boot)], False
	events = boot.events()
	try:
		layout(events, 'image')
	except LabError as err:
		return [Verdict('cycle', FAIL, str(err))], False
	if s.save_fails:
		return save_failed(s, boot, events), False
	return saved(prefix(s, 1) + 'image-saved', boot, events)


def judge_refused_boot(s: Scenario, boot: BootRecord, image: BootRecord
		       ) -> List[Verdict]:
	"""The restore kernel must refuse the image and boot fresh."""
	e = ready_event(boot)
	if e is None or e.name != 'ready-to-resume':
		return [fail_with_tail('restore-boot', 'agent not ready to resume',
				       boot)]
	lines, events, rc = boot.console, boot.events(), boot.exit_code
	v = []
	if s.paging:
		try:
			v.append(paging('paging', s.paging, None,
					layout(image.events(), 'image'),
					layout(events, 'restore'), s.paging_restore))
		except LabError as err:
			return [Verdict('cycle', FAIL, str(err))]
	needles = [n.lower() for n in s.refusal.split('|')]
	hit = next((l.strip() for l in lines
		    if any(n in l.lower() for n in needles)), '')
	if s.refusal == scenarios.NO_IMAGE:
		started = [l for l in lines if 'resume from hibernation' in l]
		hit = '' if started else 'no image found: the restore kernel ' \
			'started no resume'
	ni = protocol.first(events, 'no-image')
	if protocol.first(events, 'resumed'):
		return v + [check('refused', False, 'the image was restored: the '
			      f'kernel did not refuse it (wanted "{s.refusal}")')]
	if ni is None or rc is None:
		return v + [fail_with_tail('refused', 'the restore boot neither '
				       'refused the image nor resumed (qemu exit '
				       f'{rc})', boot)]
	if s.says or s.restore_says:
		v.append(says('configured', s.says, image, boot, (),
			      s.restore_says))
	# A line the scenario expects (a refusal may name what it found) is
	# not a splat.
	expected = s.says + s.restore_says
	found = [l for l in protocol.splats(lines)
		 if not any(n in l for n in expected)]
	sw = [e for e in events if e.name == 'swap']
	return v + [check('refused', bool(hit), (hit or f'no message of '
					     f'"{s.refusal}"') +
		      f'; resume returned {ni.get("ret")}'),
		check('fresh-boot', rc == 0 and not found, found[0] if found
		      else 'the restore kernel went on booting, no '
		      'WARN/BUG/lockdep'),
		check('swap-reusable', bool(sw) and sw[-1].int('ret') == 0,
		      f'mkswap + swapon of {sw[-1].get("dev")}: ret '
		      f'{sw[-1].get("ret")}' if sw else 'no swap report')]


def kaslr(pre: str, image: Dict[str, int], restore: Dict[str, int]
	  ) -> Verdict:
	if image.get('text') == restore.get('text'):
		return Verdict(pre + 'kaslr', SKIP, 'the restore kernel drew the '
			       'same text slot (about 1 in 500): repeat')
	return check(pre + 'kaslr', True, f'text {image["text"]:#x} -> '
		     f'{restore["text"]:#x}, page_offset_base '
		     f'{image["page_offset_base"]:#x} -> '
		     f'{restore["page_offset_base"]:#x}')


def judge_restore_boot(s: Scenario, boot: BootRecord, n: int,
		       image: BootRecord) -> Judged:
	"""Restore boot n: vCPUs parked, the image kernel back and sound."""
	pre = prefix(s, n)
	e = ready_event(boot)
	if e is None or e.name != 'ready-to-resume':
		return [fail_with_tail(pre + 'restore-boot', 'agent not ready '
				       'to resume', boot)], False
	lines, events, rc = boot.console, boot.events(), boot.exit_code
	try:
		here = layout(events, 'restore')
		there = layout(image.events(), 'image')
	except LabError as err:
		return [Verdict('cycle', FAIL, str(err))], False
	v = []
	if boot.vcpus is not None:
		v.append(parking(pre + 'hlt-parking', boot.vcpus, s.vcpus))
	if s.paging:
		v.append(paging(pre + 'paging', s.paging, boot.vcpus, there, here,
				s.paging_restore))
	if s.says or s.image_says or s.restore_says:
		v.append(says(pre + 'configured', s.says, image, boot,
			      s.image_says, s.restore_says))
	if s.resets:
		r = reset_as_known(pre + 'reset', s, boot)
		return v + [r], r.status == PASS
	if protocol.first(events, 'no-image'):
		return v + [check(pre + 'restored', False, no_resume(lines))
			    ], False
	last = n == s.cycles
	if not protocol.first(events, 'resumed') or \
	   (last and (rc is None or not protocol.first(events, 'done'))):
		return v + [fail_with_tail(pre + 'restored', 'the image kernel '
					   f'did not finish (qemu exit {rc})',
					   boot)], False
	v.append(check(pre + 'restored', True, 'image kernel resumed and '
		       'reported'))
	v.append(kaslr(pre, there, here))
	v += data_checks(pre, s, events, (image.console if n == 1 else []) +
			 lines, n == 1)
	if last:
		return v, True
	more, ok = saved(prefix(s, n + 1) + 'image-saved', boot, events)
	return v + more, ok


def boots_wanted(s: Scenario) -> int:
	if s.save_fails:
		return 1
	return 2 if s.refusal else 1 + s.cycles


def judge_cycle(s: Scenario, record: CycleRecord) -> List[Verdict]:
	"""Every verdict of one run of a scenario, in the order of its boots."""
	verdicts: List[Verdict] = []
	boots = record.boots
	ok = False
	if boots:
		got, ok = judge_image_boot(s, boots[0])
		verdicts += got
		rest = boots[1:boots_wanted(s)] if ok else []
		for n, boot in enumerate(rest, 1):
			if s.refusal:
				verdicts += judge_refused_boot(s, boot, boots[0])
				break
			got, ok = judge_restore_boot(s, boot, n, boots[0])
			verdicts += got
			if not ok:
				break
	if record.error:
		if not any(v.name == 'cycle' and v.detail == record.error
			   for v in verdicts):
			verdicts.append(Verdict('cycle', FAIL, record.error))
	elif ok and len(boots) < boots_wanted(s):
		# A record that stops early must not read as a pass.
		verdicts.append(Verdict('cycle', FAIL, f'the record has '
					f'{len(boots)} boots of the '
					f'{boots_wanted(s)} the scenario needs'))
	return verdicts


# A kernel that stopped at one of its own text-patching breakpoints: on x86
# text_poke_bp() puts an int3 on the first byte of the instruction it
# patches, and a CPU that meets it waits in poke_int3_handler() until the
# patch is done.  Under TCG a vCPU can still meet the int3 after the
# handler stopped expecting it, and the kernel dies of the trap ("Oops:
# int3"); seen with Debian's 6.12 kernel only, before its init ran, at
# enqueue_timer and at sched_clock_cpu (static keys flipped at boot), in
# 3 of about 30 boots.
TEXT_POKE_OOPS = 'Oops: int3'


def text_poke_race(record: CycleRecord) -> str:
	"""A boot that died of a stray int3 before the agent said a word
	(nothing of the cycle had run in it): its name and the oops line,
	else ''.  lab.runner runs such a cycle again under TCG."""
	for b in record.boots:
		if b.events():
			continue
		hit = next((l for l in b.console if TEXT_POKE_OOPS in l), '')
		if hit:
			where = next((l for l in b.console if 'RIP: ' in l), '')
			return f'{b.name}: {console_line(hit)}' + \
				(f', {console_line(where)}' if where else '')
	return ''


def same_kaslr_slot(s: Scenario, record: CycleRecord) -> bool:
	"""Did a restore kernel draw the image kernel's text slot?  Such a
	run proves nothing about KASLR; lab.runner repeats it."""
	if s.refusal or not record.boots:
		return False
	try:
		text = layout(record.boots[0].events(), 'image')['text']
		return any(layout(b.events(), 'restore').get('text') == text
			   for b in record.boots[1:])
	except LabError:
		return False
