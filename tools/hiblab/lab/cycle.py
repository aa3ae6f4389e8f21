# SPDX-License-Identifier: GPL-2.0
"""One hibernate -> power-off -> boot -> restore cycle: running it.

Boot 1 (image kernel): the agent fills memory, starts workers and
hibernates; QEMU must power off.  Boot 2 (restore kernel, same disk, same
-m): the agent reports the layout and waits; the host arms a hardware
breakpoint at the restore kernel's swsusp_arch_resume through QEMU's
gdbstub, tells the agent to trigger the resume, reads every vCPU at the
breakpoint, and lets the restore finish.  The image kernel's agent then
verifies its pattern, CPUs and workers and either powers off or, for a
scenario with several cycles, hibernates again for the next restore boot.

This module only runs boots and records them (lab.records); the verdicts
are lab.judge's, computed from the record written to disk.
"""

import dataclasses
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.kernel import static
from hiblab.kernel.guest import GuestImage
from hiblab.kernel.symbols import SystemMap
from hiblab.lab import gdb, judge, protocol, qemu, records, swap
from hiblab.lab.records import BootRecord, CycleRecord, VCpuRecord
from hiblab.lab.scenarios import Scenario
from hiblab.verdict import FAIL, Verdict

# Deadlines sized for TCG on 2 host cores (measured: see the lab issue).
BOOT_TIMEOUT = 240.0
SAVE_TIMEOUT = 420.0
RESTORE_TIMEOUT = 420.0


@dataclasses.dataclass(frozen=True)
class CycleRequest:
	scenario: Scenario
	image: GuestImage		# kernel that hibernates
	restore: GuestImage		# kernel that restores (may differ)
	results: Path
	accel: str			# 'kvm' or 'tcg'


class Disassembly:
	"""The restore kernel's code by function, disassembled once each."""

	def __init__(self, vmlinux: Path) -> None:
		self.vmlinux = vmlinux
		self.insns: Dict[str, List[static.Insn]] = {}

	def function(self, func: str) -> List[static.Insn]:
		if func not in self.insns:
			self.insns[func] = static.disassemble(self.vmlinux, func)
		return self.insns[func]

	def hlt_before(self, func: str, link_pc: int) -> bool:
		"""Does an instruction end at link_pc with HLT?"""
		return any(a == link_pc - 1 and text.split()[0] == 'hlt'
			   for a, text in self.function(func))

	def around(self, func: str, link_pc: int, n: int = 3
		   ) -> Tuple[str, ...]:
		"""n instructions either side of link_pc, '>' marking it."""
		insns = self.function(func)
		at = next((i for i, (a, _) in enumerate(insns) if a >= link_pc),
			  len(insns))
		return tuple(f'{">" if a == link_pc else " "} {a:x}: {text}'
			     for a, text in insns[max(0, at - n):at + n + 1])


def resolve_vcpus(cpus: List[gdb.VCpu], smap: SystemMap, slide: int,
		  code: Disassembly) -> List[VCpuRecord]:
	"""Where each vCPU is, in the restore kernel's terms.  The code is
	disassembled for vCPUs in the kernel's text only."""
	out = []
	for c in cpus:
		in_text = smap.in_text(c.pc, slide)
		func = smap.function(c.pc, slide) if in_text else ''
		out.append(VCpuRecord(
			c.cpu, c.pc, c.state, c.hlt, in_text,
			smap.name(c.pc, slide) if in_text else '', func,
			bool(func) and c.state == 'halted' and
			code.hlt_before(func, c.pc - slide),
			code.around(func, c.pc - slide) if func else (),
			c.cr4))
	return out


def _ready(boot: BootRecord, name: str) -> bool:
	e = judge.ready_event(boot)
	return e is not None and e.name == name


class Cycle:
	"""Runs one scenario's boots; run() returns the judged verdicts."""

	def __init__(self, req: CycleRequest) -> None:
		self.req = req
		self.record = CycleRecord(req.scenario.name, req.accel, [])
		self.start = time.monotonic()
		self.code = Disassembly(req.restore.build / 'vmlinux')

	def run(self) -> List[Verdict]:
		req = self.req
		req.results.mkdir(parents=True, exist_ok=True)
		start = self.start = time.monotonic()
		disk = req.results / 'swap.img'
		with disk.open('wb') as f:
			f.truncate(req.scenario.swap_mb << 20)
		try:
			self._boots(disk)
		except LabError as e:
			self.record.error = str(e)
		finally:
			self.record.seconds = round(time.monotonic() - start, 1)
			self.record.save(req.results)
		# Judge what is on disk, as a captured run would be judged.
		self.record = records.load(req.results)
		verdicts = judge.judge_cycle(req.scenario, self.record)
		# The image (a third of guest RAM) is evidence only when a check
		# failed; a run of passing cycles would fill the disk.
		if all(v.status != FAIL for v in verdicts):
			disk.unlink()
		return verdicts

	def _boots(self, disk: Path) -> None:
		s = self.req.scenario
		image = self._boot(disk, 0)
		if not judge.judge_image_boot(s, image)[1]:
			return
		if s.corrupt:
			self.record.corruption = swap.corrupt(disk, s.corrupt)
		if s.refusal:
			self._boot(disk, 1)
			return
		for n in range(1, s.cycles + 1):
			boot = self._boot(disk, n)
			if not judge.judge_restore_boot(s, boot, n, image)[1]:
				return

	def _boot(self, disk: Path, n: int) -> BootRecord:
		"""Boot n (0: the image kernel), recorded even when it fails."""
		req = self.req
		s = req.scenario
		kernel = 'restore' if n else 'image'
		name = f'boot{n + 1}-{kernel}' + \
			(f'-{n}' if n and s.cycles > 1 else '')
		port = qemu.free_port() if n and s.hlt_proof and \
			not s.refusal else 0
		console = req.results / f'{name}-console.log'
		argv = qemu.boot_argv(s, req.restore if n else req.image,
					  req.accel, kernel, console, disk, port)
		boot = BootRecord(name, kernel, n, argv, None, None, {},
				  started=round(time.monotonic() - self.start, 3),
				  results=req.results)
		self.record.boots.append(boot)
		g = qemu.Guest(argv, boot.agent_file, console)
		try:
			if n:
				self._restore(boot, g, port)
			else:
				self._image(boot, g)
		finally:
			g.kill()
			boot.read_logs()
		return boot

	def _image(self, boot: BootRecord, g: qemu.Guest) -> None:
		boot.ready = g.wait_for_event(records.IMAGE_READY, BOOT_TIMEOUT)
		boot.times['image-boot'] = g.seconds
		if not _ready(boot, 'hibernating'):
			return
		mark = g.seconds
		boot.deadline = SAVE_TIMEOUT
		boot.exit_code = g.wait_exit(SAVE_TIMEOUT)
		boot.times['hibernate-to-power-off'] = g.seconds - mark

	def _restore(self, boot: BootRecord, g: qemu.Guest,
		     port: int) -> None:
		boot.ready = g.wait_for_event(records.RESTORE_READY,
					      BOOT_TIMEOUT)
		boot.times['restore-boot'] = g.seconds
		if not _ready(boot, 'ready-to-resume'):
			return
		session: Optional[gdb.BreakpointSession] = None
		try:
			if port:
				layout = judge.layout(
					protocol.parse_log(g.lines), 'restore')
				tag = boot.name.split('restore', 1)[1]
				boot.gdb = f'gdb-transcript{tag}.txt'
				session = gdb.BreakpointSession(
					port, layout['swsusp_arch_resume'],
					boot.results / boot.gdb)
				session.start(60.0)
			mark = g.seconds
			g.send('go\n')
			if session:
				cpus = session.result(RESTORE_TIMEOUT) or []
				boot.times['to-swsusp_arch_resume'] = g.seconds - mark
				smap = SystemMap(self.req.restore.system_map)
				boot.vcpus = resolve_vcpus(
					cpus, smap, smap.offset(layout['text']),
					self.code)
			boot.deadline = RESTORE_TIMEOUT
			boot.exit_code = g.wait_exit(RESTORE_TIMEOUT)
			boot.times['restore-to-done'] = g.seconds - mark
		finally:
			if session:
				session.kill()
