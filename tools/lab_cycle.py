# SPDX-License-Identifier: GPL-2.0
"""One hibernate -> power-off -> boot -> restore cycle, and its checks.

Boot 1 (image kernel): the agent fills memory, starts workers and
hibernates; QEMU must power off.  Boot 2 (restore kernel, same disk, same
-m): the agent reports the layout and waits; the host arms a hardware
breakpoint at the restore kernel's swsusp_arch_resume through QEMU's
gdbstub, tells the agent to trigger the resume, reads every vCPU at the
breakpoint, and lets the restore finish.  The image kernel's agent then
verifies its pattern, CPUs and workers and powers off.
"""

import dataclasses
import json
from pathlib import Path
from typing import Dict, List, Optional

import lab_gdb
import lab_protocol
import lab_qemu
from lab_errors import LabError
from lab_guest import GuestImage
from lab_scenarios import Scenario, pattern_mb
from lab_symbols import SystemMap
from lab_verdict import FAIL, PASS, SKIP, Verdict

# Deadlines sized for TCG on 2 host cores (measured: see the lab issue).
BOOT_TIMEOUT = 240.0
SAVE_TIMEOUT = 420.0
RESTORE_TIMEOUT = 420.0
PARKING_FUNCTIONS = ('hlt_play_dead',)
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
		('offline_image', s.offline_image),
		('offline_restore', s.offline_restore),
		('online_after', s.online_after)) if v]
	cmdline = ' '.join(['console=ttyS0', 'panic=-1', 'no_console_suspend',
			    'loglevel=7'] + params +
			   ([extra_cmdline] if extra_cmdline else []))
	argv = ['qemu-system-x86_64', '-nodefaults', '-nographic', '-no-reboot',
		'-accel', req.accel, '-cpu', s.cpu, '-smp', smp,
		'-m', str(s.memory_mb), '-kernel', str(guest.bzimage),
		'-initrd', str(guest.initramfs), '-append', cmdline,
		'-monitor', 'none'] + lab_qemu.uart_args(console) + [
		'-drive', f'file={disk},format=raw,if=virtio']
	if gdb_port:
		argv += ['-gdb', f'tcp:127.0.0.1:{gdb_port}']
	return argv


def _fail_with_tail(name: str, what: str, guest: lab_qemu.Guest) -> Verdict:
	tail = ' | '.join(l.strip() for l in guest.tail(8))
	return Verdict(name, FAIL, f'{what}; console tail: {tail} '
		       f'(console: {guest.console})')


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


class Cycle:
	"""State of one cycle; run() returns its verdicts."""

	def __init__(self, req: CycleRequest) -> None:
		self.req = req
		self.verdicts: List[Verdict] = []
		self.data: Dict[str, object] = {'scenario': req.scenario.name,
						 'accel': req.accel}
		self.times: Dict[str, float] = {}

	def check(self, name: str, ok: bool, detail: str) -> bool:
		self.verdicts.append(Verdict(name, PASS if ok else FAIL, detail))
		return ok

	def run(self) -> List[Verdict]:
		req = self.req
		req.results.mkdir(parents=True, exist_ok=True)
		disk = req.results / 'swap.img'
		with disk.open('wb') as f:
			f.truncate(req.scenario.swap_mb << 20)
		try:
			if self._image_boot(disk) and self._restore_boot(disk):
				self._after_resume()
		except LabError as e:
			self.verdicts.append(Verdict('cycle', FAIL, str(e)))
		finally:
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
		self.events = lab_protocol.parse_log(g.lines)
		self.data['image_layout'] = _layout(self.events, 'image')
		if lab_protocol.first(self.events, 'resumed'):
			e = lab_protocol.first(self.events, 'resumed')
			return self.check('image-saved', False, 'the save failed '
					  f'and the system thawed ({e.get("ret")})')
		if rc is None:
			self.verdicts.append(_fail_with_tail(
				'image-saved', f'no power-off within {SAVE_TIMEOUT:.0f}s',
				g))
			return False
		h = lab_protocol.first(self.events, 'hibernating')
		return self.check('image-saved', rc == 0, f'{int(h.get("bytes")) >> 20}'
				  f' MiB pattern, powered off (qemu exit {rc})')

	def _restore_boot(self, disk: Path) -> bool:
		req = self.req
		port = lab_qemu.free_port() if req.scenario.hlt_proof else 0
		console = req.results / 'boot2-restore-console.log'
		g = lab_qemu.Guest(qemu_argv(req, req.restore, disk, 'restore',
					     req.scenario.cmdline_restore, console,
					     port),
				   req.results / 'boot2-restore-agent.log', console)
		session: Optional[lab_gdb.BreakpointSession] = None
		try:
			line = g.wait_for(lambda l: 'HIBLAB ready-to-resume' in l or
					  'HIBLAB checker-error' in l, BOOT_TIMEOUT)
			self.times['restore-boot'] = g.seconds
			if not line or 'ready-to-resume' not in line:
				self.verdicts.append(_fail_with_tail(
					'restore-boot', 'agent not ready to resume', g))
				return False
			layout = _layout(lab_protocol.parse_log(g.lines), 'restore')
			self.data['restore_layout'] = layout
			if port:
				session = lab_gdb.BreakpointSession(
					port, layout['swsusp_arch_resume'],
					req.results / 'gdb-transcript.txt')
				session.start(60.0)
			mark = g.seconds
			g.send('go\n')
			if session:
				cpus = session.result(RESTORE_TIMEOUT)
				self.times['to-swsusp_arch_resume'] = g.seconds - mark
				self._check_parking(cpus, layout)
			rc = g.wait_exit(RESTORE_TIMEOUT)
			self.times['restore-to-done'] = g.seconds - mark
		finally:
			if session:
				session.kill()
			g.kill()
		self.restore_lines = g.console_lines()
		events = lab_protocol.parse_log(g.lines)
		if lab_protocol.first(events, 'no-image'):
			return self.check('restored', False, 'the restore kernel '
					  'found no image')
		self.resumed_events = events
		done = lab_protocol.first(events, 'done')
		if rc is None or not done:
			self.verdicts.append(_fail_with_tail(
				'restored', 'the image kernel did not finish '
				f'(qemu exit {rc})', g))
			return False
		return self.check('restored', True, 'image kernel resumed and '
				  'reported')

	def _check_parking(self, cpus: Optional[List[lab_gdb.VCpu]],
			   layout: Dict[str, int]) -> None:
		if not cpus:
			self.check('hlt-parking', False, 'the breakpoint at '
				   'swsusp_arch_resume was not reached')
			return
		smap = SystemMap(self.req.restore.system_map)
		slide = smap.offset(layout['text'])
		where = []
		bad = []
		for c in cpus:
			sym = smap.name(c.pc, slide)
			where.append({'cpu': c.cpu, 'state': c.state,
				      'pc': hex(c.pc), 'symbol': sym})
			if c.cpu == 0:
				continue
			if c.state != 'halted' or \
			   smap.function(c.pc, slide) not in PARKING_FUNCTIONS:
				bad.append(f'CPU{c.cpu} {c.state} in {sym}')
		self.data['cpus_at_swsusp_arch_resume'] = where
		summary = ', '.join(f'CPU{w["cpu"]} {w["state"]} {w["symbol"]}'
				    for w in where)
		self.check('hlt-parking', not bad and len(cpus) ==
			   self.req.scenario.vcpus, '; '.join(bad) or summary)

	def _after_resume(self) -> None:
		s = self.req.scenario
		events = self.resumed_events
		img, rst = self.data['image_layout'], self.data['restore_layout']
		if img.get('text') == rst.get('text'):
			self.verdicts.append(Verdict('kaslr', SKIP, 'the restore '
						     'kernel drew the same text slot '
						     '(about 1 in 500): repeat'))
		else:
			self.check('kaslr', True, f'text {img["text"]:#x} -> '
				   f'{rst["text"]:#x}, page_offset_base '
				   f'{img["page_offset_base"]:#x} -> '
				   f'{rst["page_offset_base"]:#x}')
		p = lab_protocol.first(events, 'pattern-check')
		want = pattern_mb(s) << 20
		self.check('pattern', p is not None and p.int('bad_words') == 0 and
			   p.int('bytes') >= want, f'{p.int("bytes") >> 20} MiB, '
			   f'{p.get("bad_words")} bad words (first at '
			   f'{p.get("first_bad")})' if p else 'no pattern-check')
		t = lab_protocol.first(events, 'tmpfs-check')
		self.check('tmpfs', t is not None and t.int('bad_words') == 0,
			   f'{t.get("bad_words")} bad words' if t else
			   'no tmpfs-check')
		c = lab_protocol.first(events, 'cpus-check')
		self.check('cpus', c is not None and c.get('before') ==
			   c.get('after'), f'online {c.get("before")} -> '
			   f'{c.get("after")}' if c else 'no cpus-check')
		w = [e for e in events if e.name == 'workers-check']
		self.check('workers', bool(w) and w[-1].int('stuck') == 0,
			   f'{w[-1].get("running")} running, {w[-1].get("stuck")} '
			   'stuck' if w else 'no workers-check')
		lines = self.image_lines + self.restore_lines
		found = lab_protocol.splats(lines)
		self.check('no-splat', not found, found[0] if found else
			   'no WARN/BUG/lockdep in either boot')
		self.data['image_phases'] = lab_protocol.kernel_stamps(
			self.image_lines, PHASES)
		self.data['restore_phases'] = lab_protocol.kernel_stamps(
			self.restore_lines, RESTORE_PHASES)
		self.data['resumed_phases'] = lab_protocol.kernel_stamps(
			self.restore_lines, RESUMED_PHASES)
