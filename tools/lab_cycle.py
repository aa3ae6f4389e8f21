# SPDX-License-Identifier: GPL-2.0
"""One hibernate -> power-off -> boot -> restore cycle, and its checks.

Boot 1 (image kernel): the agent fills memory, starts workers and
hibernates; QEMU must power off.  Boot 2 (restore kernel, same disk, same
-m): the agent reports the layout and waits; the host arms a hardware
breakpoint at the restore kernel's swsusp_arch_resume through QEMU's
gdbstub, tells the agent to trigger the resume, reads every vCPU at the
breakpoint, and lets the restore finish.  The image kernel's agent then
verifies its pattern, CPUs and workers and either powers off or, for a
scenario with several cycles, hibernates again for the next restore boot.
With more than one cycle, every check after the image boot is named
cycle<N>/<check>.
"""

import dataclasses
import json
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import lab_gdb
import lab_protocol
import lab_qemu
import lab_static
import lab_swap
from lab_errors import LabError
from lab_guest import GuestImage
import lab_scenarios
from lab_scenarios import Scenario, pattern_mb
from lab_symbols import SystemMap
from lab_verdict import FAIL, PASS, SKIP, Verdict

# Deadlines sized for TCG on 2 host cores (measured: see the lab issue).
BOOT_TIMEOUT = 240.0
SAVE_TIMEOUT = 420.0
RESTORE_TIMEOUT = 420.0
# Where a non-boot CPU may be while the image is copied: halted right after
# a HLT in hlt_play_dead() (resume_play_dead) or in the HLT loop that
# smp_kick_mwait_play_dead() moves mwait_play_dead() to (inlined into
# native_play_dead()).  Both functions also hold code that is not a safe
# place (the MWAIT loop), so the instruction before the PC must be HLT.
PARKING_FUNCTIONS = ('hlt_play_dead', 'mwait_play_dead', 'native_play_dead')
# printk needles for per-phase times.  Each boot has its own clock: the
# image kernel's before the power-off, the restore kernel's up to the jump,
# then the image kernel's clock again after the resume.
PHASES = {
	'freeze': 'Freezing user space processes',
	'snapshot': 'Creating image',
	'save': 'saving image data',
	'saved': 'Image saving done',
	'power-off': 'reboot: Power down',
}
RESTORE_PHASES = {
	'resume': 'resume from hibernation',
	'load': 'decompressing image data',
	'loaded': 'Image loading done',
	'freeze-cpus': 'Disabling non-boot CPUs',
}
RESUMED_PHASES = {
	'enable-cpus': 'Enabling non-boot CPUs',
	'thaw': 'Restarting tasks',
	'exit': 'hibernation exit',
}


@dataclasses.dataclass(frozen=True)
class CycleRequest:
	scenario: Scenario
	image: GuestImage		# kernel that hibernates
	restore: GuestImage		# kernel that restores (may differ)
	results: Path
	accel: str			# 'kvm' or 'tcg'


def qemu_argv(req: CycleRequest, guest: GuestImage, disk: Path, mode: str,
	      extra_cmdline: str, console: Path, gdb_port: int = 0) -> List[str]:
	s = req.scenario
	smp = f'{s.vcpus}' + (f',{s.topology}' if s.topology else '')
	params = [f'hiblab.{k}={v}' for k, v in (
		('mode', mode), ('pattern_mb', pattern_mb(s)),
		('cycles', s.cycles if s.cycles > 1 else ''),
		('trace', 1 if s.trace else ''),
		('churn', 1 if s.churn else ''),
		('offline_image', s.offline_image),
		('offline_restore', s.offline_restore),
		('online_after', s.online_after)) if v]
	cmdline = ' '.join(['console=ttyS0', 'panic=-1', 'no_console_suspend',
			    'loglevel=7'] + params +
			   ([extra_cmdline] if extra_cmdline else []))
	argv = ['qemu-system-x86_64', '-nodefaults', '-nographic', '-no-reboot',
		'-accel', req.accel, '-cpu', s.cpu, '-smp', smp,
		'-m', str(s.restore_memory_mb or s.memory_mb if mode == 'restore'
			  else s.memory_mb), '-kernel', str(guest.bzimage),
		'-initrd', str(guest.initramfs), '-append', cmdline,
		'-monitor', 'none'] + lab_qemu.uart_args(console) + [
		'-drive', f'file={disk},format=raw,if=virtio']
	if gdb_port:
		argv += ['-gdb', f'tcp:127.0.0.1:{gdb_port}']
	return argv


def _fail_with_tail(name: str, what: str, guest: lab_qemu.Guest) -> Verdict:
	tail = ' | '.join(l.strip() for l in guest.tail(8))
	# A panic's register dump fills the tail; name the panic itself.
	crash = next((l.strip() for l in guest.console_lines()
		      if 'Kernel panic' in l), '')
	return Verdict(name, FAIL, f'{what}; ' + (f'{crash}; ' if crash else '') +
		       f'console tail: {tail} (console: {guest.console})')


def _layout(events: List[lab_protocol.Event], boot: str) -> Dict[str, int]:
	"""The agent's layout report; raises LabError if it is malformed."""
	for e in events:
		if e.name == 'layout' and e.get('boot') == boot:
			try:
				return {k: int(v, 0) for k, v in e.fields.items()
					if k != 'boot'}
			except ValueError as err:
				raise LabError(f'malformed layout line {e.line} from the '
					       f'{boot} kernel: {err}') from err
	raise LabError(f'no layout report from the {boot} kernel')


def vcpu_state(c: lab_gdb.VCpu) -> str:
	"""'halted' or 'running' where gdb and HMP agree, else both views."""
	if c.hlt is None:
		return f'{c.state} (gdb) but not in `info registers -a` at that RIP'
	if c.hlt == (c.state == 'halted'):
		return c.state
	return f'{c.state} (gdb) but HLT={int(c.hlt)} (info registers)'


def parking_place(c: lab_gdb.VCpu, smap: SystemMap, slide: int,
		  hlt_before: Callable[[str, int], bool]) -> Tuple[bool, str]:
	"""(safe, where) for a non-boot vCPU at the breakpoint.

	Safe: halted after a HLT in a parking function, or halted outside
	the kernel's text (an AP that was never started: wait-for-SIPI).
	Halted means both of QEMU's views say so: gdb's thread state and
	HLT=1 in `info registers -a`.
	"""
	state = vcpu_state(c)
	if not smap.in_text(c.pc, slide):
		where = f'CPU{c.cpu} {state} at {c.pc:#x} (outside the kernel)'
		return state == 'halted', where + (': never started by it' if
						   state == 'halted' else '')
	sym = smap.name(c.pc, slide)
	func = smap.function(c.pc, slide)
	where = f'CPU{c.cpu} {state} in {sym}'
	if state != 'halted':
		return False, where
	if func not in PARKING_FUNCTIONS:
		return False, where + ' (not a parking function)'
	if not hlt_before(func, c.pc - slide):
		return False, where + ' (not after a HLT)'
	return True, where


class HltFinder:
	"""Does an instruction end at a link-time address with HLT?"""

	def __init__(self, vmlinux: Path) -> None:
		self.vmlinux = vmlinux
		self.insns: Dict[str, List[lab_static.Insn]] = {}

	def __call__(self, func: str, link_pc: int) -> bool:
		if func not in self.insns:
			self.insns[func] = lab_static.disassemble(self.vmlinux, func)
		return any(a == link_pc - 1 and text.split()[0] == 'hlt'
			   for a, text in self.insns[func])


class Cycle:
	"""State of one scenario's boots; run() returns its verdicts."""

	def __init__(self, req: CycleRequest) -> None:
		self.req = req
		self.verdicts: List[Verdict] = []
		self.data: Dict[str, object] = {'scenario': req.scenario.name,
						 'accel': req.accel, 'cycles': []}
		self.times: Dict[str, float] = {}
		self.image_lines: List[str] = []
		self.hlt_before = HltFinder(req.restore.build / 'vmlinux')

	def prefix(self, n: int) -> str:
		return f'cycle{n}/' if self.req.scenario.cycles > 1 else ''

	def check(self, name: str, ok: bool, detail: str) -> bool:
		self.verdicts.append(Verdict(name, PASS if ok else FAIL, detail))
		return ok

	def run(self) -> List[Verdict]:
		req = self.req
		req.results.mkdir(parents=True, exist_ok=True)
		start = time.monotonic()
		disk = req.results / 'swap.img'
		with disk.open('wb') as f:
			f.truncate(req.scenario.swap_mb << 20)
		try:
			s = req.scenario
			if self._image_boot(disk) and not s.save_fails:
				if s.corrupt:
					self.data['corruption'] = lab_swap.corrupt(
						disk, s.corrupt)
				if s.refusal:
					self._refused_boot(disk)
				else:
					for n in range(1, s.cycles + 1):
						if not self._restore_boot(disk, n):
							break
		except LabError as e:
			self.verdicts.append(Verdict('cycle', FAIL, str(e)))
		finally:
			# Phase times overlap; this is the run's wall time.
			self.data['seconds'] = round(time.monotonic() - start, 1)
			self.data['times'] = self.times
			self.data['checks'] = [dataclasses.asdict(v)
					       for v in self.verdicts]
			(req.results / 'verdict.json').write_text(
				json.dumps(self.data, indent=1) + '\n')
		return self.verdicts

	def _image_boot(self, disk: Path) -> bool:
		req = self.req
		console = req.results / 'boot1-image-console.log'
		g = lab_qemu.Guest(qemu_argv(req, req.image, disk, 'image', '',
					     console),
				   req.results / 'boot1-image-agent.log', console)
		try:
			line = g.wait_for(lambda l: 'HIBLAB hibernating' in l or
					  'HIBLAB checker-error' in l or
					  'HIBLAB refused' in l, BOOT_TIMEOUT)
			self.times['image-boot'] = g.seconds
			if not line or 'hibernating' not in line:
				self.verdicts.append(_fail_with_tail(
					'image-boot', 'no "hibernating" from the agent'
					if not line else line.strip(), g))
				return False
			mark = g.seconds
			rc = g.wait_exit(SAVE_TIMEOUT)
			self.times['hibernate-to-power-off'] = g.seconds - mark
		finally:
			g.kill()
		self.image_lines = g.console_lines()
		events = lab_protocol.parse_log(g.lines)
		self.data['image_layout'] = _layout(events, 'image')
		self.data['image_phases'] = lab_protocol.kernel_stamps(
			self.image_lines, PHASES)
		if req.scenario.save_fails:
			self._save_failed(events, rc, g)
			return False
		return self._saved(self.prefix(1), events, rc, g)

	def _save_failed(self, events: List[lab_protocol.Event],
			 rc: Optional[int], g: lab_qemu.Guest) -> None:
		"""The save must fail cleanly: thawed, nothing lost."""
		want = self.req.scenario.save_fails
		r = lab_protocol.first(events, 'resumed')
		if r is None or rc is None or not lab_protocol.first(events, 'done'):
			self.verdicts.append(_fail_with_tail(
				'save-refused', 'the image kernel did not come back '
				f'from the failed save (qemu exit {rc})', g))
			return
		why = next((l.strip() for l in self.image_lines
			    if 'PM:' in l and ('fail' in l.lower() or
					       'swap' in l.lower())),
			   'no PM: message about the failure')
		self.check('save-refused', r.get('ret') == want,
			   f'write to /sys/power/state returned {r.get("ret")} '
			   f'(want {want}); {why}')
		self._data_checks('', events, self.image_lines, True)

	def _refused_boot(self, disk: Path) -> None:
		"""The restore kernel must refuse the image and boot fresh."""
		req = self.req
		s = req.scenario
		console = req.results / 'boot2-restore-console.log'
		g = lab_qemu.Guest(qemu_argv(req, req.restore, disk, 'restore',
					     s.cmdline_restore, console),
				   req.results / 'boot2-restore-agent.log', console)
		try:
			line = g.wait_for(lambda l: 'HIBLAB ready-to-resume' in l or
					  'HIBLAB checker-error' in l, BOOT_TIMEOUT)
			self.times['restore-boot'] = g.seconds
			if not line or 'ready-to-resume' not in line:
				self.verdicts.append(_fail_with_tail(
					'restore-boot', 'agent not ready to resume', g))
				return
			mark = g.seconds
			g.send('go\n')
			rc = g.wait_exit(RESTORE_TIMEOUT)
			self.times['resume-attempt-to-power-off'] = g.seconds - mark
		finally:
			g.kill()
		lines = g.console_lines()
		events = lab_protocol.parse_log(g.lines)
		needles = [n.lower() for n in s.refusal.split('|')]
		hit = next((l.strip() for l in lines
			    if any(n in l.lower() for n in needles)), '')
		if s.refusal == lab_scenarios.NO_IMAGE:
			started = [l for l in lines if RESTORE_PHASES['resume'] in l]
			hit = '' if started else 'no image found: the restore ' \
				'kernel started no resume'
		ni = lab_protocol.first(events, 'no-image')
		if lab_protocol.first(events, 'resumed'):
			self.check('refused', False, 'the image was restored: the '
				   f'kernel did not refuse it (wanted "{s.refusal}")')
			return
		if ni is None or rc is None:
			self.verdicts.append(_fail_with_tail(
				'refused', 'the restore boot neither refused the image '
				f'nor resumed (qemu exit {rc})', g))
			return
		self.check('refused', bool(hit), (hit or 'no message of '
			   f'"{s.refusal}"') + f'; resume returned {ni.get("ret")}')
		found = lab_protocol.splats(lines)
		self.check('fresh-boot', rc == 0 and not found, found[0] if found
			   else 'the restore kernel went on booting, no '
			   'WARN/BUG/lockdep')
		sw = [e for e in events if e.name == 'swap']
		self.check('swap-reusable', bool(sw) and sw[-1].int('ret') == 0,
			   f'mkswap + swapon of {sw[-1].get("dev")}: ret '
			   f'{sw[-1].get("ret")}' if sw else 'no swap report')

	def _saved(self, prefix: str, events: List[lab_protocol.Event],
		   rc: Optional[int], g: lab_qemu.Guest) -> bool:
		"""The image kernel hibernated and QEMU powered off."""
		name = prefix + 'image-saved'
		h = [e for e in events if e.name == 'hibernating']
		r = [e for e in events if e.name == 'resumed']
		if h and r and r[-1].line > h[-1].line:
			return self.check(name, False, 'the save failed and the '
					  f'system thawed ({r[-1].get("ret")})')
		if rc is None:
			self.verdicts.append(_fail_with_tail(
				name, f'no power-off within {SAVE_TIMEOUT:.0f}s', g))
			return False
		if not h:
			self.verdicts.append(_fail_with_tail(
				name, 'the image kernel did not hibernate again', g))
			return False
		return self.check(name, rc == 0, f'{int(h[-1].get("bytes")) >> 20}'
				  f' MiB pattern, powered off (qemu exit {rc})')

	def _restore_boot(self, disk: Path, n: int) -> bool:
		req = self.req
		s = req.scenario
		pre = self.prefix(n)
		tag = f'-{n}' if s.cycles > 1 else ''
		port = lab_qemu.free_port() if s.hlt_proof else 0
		console = req.results / f'boot{n + 1}-restore{tag}-console.log'
		g = lab_qemu.Guest(qemu_argv(req, req.restore, disk, 'restore',
					     s.cmdline_restore, console, port),
				   req.results / f'boot{n + 1}-restore{tag}-agent.log',
				   console)
		session: Optional[lab_gdb.BreakpointSession] = None
		record: Dict[str, object] = {'cycle': n}
		self.data['cycles'].append(record)
		try:
			line = g.wait_for(lambda l: 'HIBLAB ready-to-resume' in l or
					  'HIBLAB checker-error' in l, BOOT_TIMEOUT)
			self.times[pre + 'restore-boot'] = g.seconds
			if not line or 'ready-to-resume' not in line:
				self.verdicts.append(_fail_with_tail(
					pre + 'restore-boot', 'agent not ready to resume',
					g))
				return False
			layout = _layout(lab_protocol.parse_log(g.lines), 'restore')
			record['restore_layout'] = layout
			if port:
				session = lab_gdb.BreakpointSession(
					port, layout['swsusp_arch_resume'],
					req.results / f'gdb-transcript{tag}.txt')
				session.start(60.0)
			mark = g.seconds
			g.send('go\n')
			if session:
				cpus = session.result(RESTORE_TIMEOUT)
				self.times[pre + 'to-swsusp_arch_resume'] = \
					g.seconds - mark
				self._check_parking(pre, cpus, layout, record)
			rc = g.wait_exit(RESTORE_TIMEOUT)
			self.times[pre + 'restore-to-done'] = g.seconds - mark
		finally:
			if session:
				session.kill()
			g.kill()
		lines = g.console_lines()
		events = lab_protocol.parse_log(g.lines)
		if lab_protocol.first(events, 'no-image'):
			return self.check(pre + 'restored', False, 'the restore '
					  'kernel found no image')
		last = n == s.cycles
		if not lab_protocol.first(events, 'resumed') or \
		   (last and (rc is None or not lab_protocol.first(events, 'done'))):
			self.verdicts.append(_fail_with_tail(
				pre + 'restored', 'the image kernel did not finish '
				f'(qemu exit {rc})', g))
			return False
		self.check(pre + 'restored', True, 'image kernel resumed and '
			   'reported')
		self._after_resume(pre, events, lines, layout, record)
		if last:
			return True
		return self._saved(self.prefix(n + 1), events, rc, g)

	def _check_parking(self, pre: str, cpus: Optional[List[lab_gdb.VCpu]],
			   layout: Dict[str, int], record: Dict[str, object]
			   ) -> None:
		if not cpus:
			self.check(pre + 'hlt-parking', False, 'the breakpoint at '
				   'swsusp_arch_resume was not reached')
			return
		smap = SystemMap(self.req.restore.system_map)
		slide = smap.offset(layout['text'])
		where, bad = [], []
		for c in cpus:
			if c.cpu == 0:
				where.append(f'CPU0 {vcpu_state(c)} in '
					     f'{smap.name(c.pc, slide)}')
				continue
			safe, place = parking_place(c, smap, slide,
						    self.hlt_before)
			where.append(place)
			if not safe:
				bad.append(place)
		record['cpus_at_swsusp_arch_resume'] = where
		count = '' if len(cpus) == self.req.scenario.vcpus else \
			f'; gdb saw {len(cpus)} of {self.req.scenario.vcpus} vCPUs'
		self.check(pre + 'hlt-parking', not bad and not count,
			   '; '.join(bad) + count if bad or count else
			   ', '.join(where))

	def _after_resume(self, pre: str, events: List[lab_protocol.Event],
			  lines: List[str], layout: Dict[str, int],
			  record: Dict[str, object]) -> None:
		img = self.data['image_layout']
		if img.get('text') == layout.get('text'):
			self.verdicts.append(Verdict(pre + 'kaslr', SKIP, 'the '
						     'restore kernel drew the same '
						     'text slot (about 1 in 500): '
						     'repeat'))
		else:
			self.check(pre + 'kaslr', True, f'text {img["text"]:#x} -> '
				   f'{layout["text"]:#x}, page_offset_base '
				   f'{img["page_offset_base"]:#x} -> '
				   f'{layout["page_offset_base"]:#x}')
		self._data_checks(pre, events, (self.image_lines if pre in
						('', 'cycle1/') else []) + lines,
				  pre in ('', 'cycle1/'))
		record['restore_phases'] = lab_protocol.kernel_stamps(
			lines, RESTORE_PHASES)
		record['resumed_phases'] = lab_protocol.kernel_stamps(
			lines, RESUMED_PHASES)

	def _data_checks(self, pre: str, events: List[lab_protocol.Event],
			 lines: List[str], both: bool) -> None:
		"""What the image kernel reports after coming back, and its log."""
		s = self.req.scenario
		p = lab_protocol.first(events, 'pattern-check')
		want = pattern_mb(s) << 20
		self.check(pre + 'pattern', p is not None and
			   p.int('bad_words') == 0 and p.int('bytes') >= want,
			   f'{p.int("bytes") >> 20} MiB, {p.get("bad_words")} bad '
			   f'words (first at {p.get("first_bad")})' if p else
			   'no pattern-check')
		t = lab_protocol.first(events, 'tmpfs-check')
		self.check(pre + 'tmpfs', t is not None and
			   t.int('bad_words') == 0, f'{t.get("bad_words")} bad '
			   'words' if t else 'no tmpfs-check')
		c = lab_protocol.first(events, 'cpus-check')
		self.check(pre + 'cpus', c is not None and c.get('before') ==
			   c.get('after'), f'online {c.get("before")} -> '
			   f'{c.get("after")}' if c else 'no cpus-check')
		w = [e for e in events if e.name == 'workers-check']
		self.check(pre + 'workers', bool(w) and w[-1].int('stuck') == 0,
			   f'{w[-1].get("running")} running, {w[-1].get("stuck")} '
			   'stuck' if w else 'no workers-check')
		if s.trace:
			tr = lab_protocol.first(events, 'trace-check')
			# One machine_suspend begin per earlier round, and this
			# round's begin and end at least.
			self.check(pre + 'trace', tr is not None and
				   tr.int('machine_suspend') >= 2,
				   f'{tr.get("machine_suspend")} machine_suspend '
				   'events in the resumed kernel\'s trace buffer'
				   if tr else 'no trace-check')
		found = lab_protocol.splats(lines)
		self.check(pre + 'no-splat', not found, found[0] if found else
			   'no WARN/BUG/lockdep in ' +
			   ('either boot' if both else 'this boot'))
