# SPDX-License-Identifier: GPL-2.0
"""Stop a guest at an address with QEMU's gdbstub and read every vCPU.

gdb runs in batch mode without symbols (the guest kernel is KASLR'd);
addresses are symbolized by kernel.symbols against the System.map of the
kernel that was running, shifted by its own KASLR offset.
"""

import dataclasses
import re
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab.errors import LabError

# "  2    Thread 1.2 (CPU#1 [halted ]) 0xffffffff8b0a3c6e in ?? ()"
_THREAD = re.compile(r'Thread \d+\.(\d+) \(CPU#(\d+) \[(\w+)\s*\]\)\s+'
		     r'(0x[0-9a-f]+)')
# QEMU's HMP `info registers -a` (through gdb's `monitor`): "CPU#1" opens
# a vCPU's dump, whose RIP line ends in "HLT=1" for a halted vCPU.  A vCPU
# outside long mode (an AP still in the firmware's halt loop, maxcpus=) has
# an EIP line instead; the gdbstub's PC is that EIP too.
_HMP_CPU = re.compile(r'^CPU#(\d+)$', re.M)
_HMP_RIP = re.compile(r'^[RE]IP=([0-9a-f]{8}|[0-9a-f]{16}) .* HLT=([01])$',
		      re.M)
# "CR0=80050033 CR2=... CR3=... CR4=00351eb0": CR4.LA57 (bit 12) says
# which paging level the vCPU runs.
_HMP_CR4 = re.compile(r'^CR0=.* CR4=([0-9a-f]+)$', re.M)
# gdb -batch prints no "Continuing." before the stop; the breakpoint being
# set is the last thing it says, and the console input sent after it waits
# in QEMU's UART until the guest runs.
ARMED = 'Hardware assisted breakpoint'


@dataclasses.dataclass(frozen=True)
class VCpu:
	cpu: int
	state: str		# 'halted' or 'running', as gdb's thread list says
	pc: int
	hlt: Optional[bool] = None	# HLT= of `info registers -a`
	cr4: Optional[int] = None	# CR4 of `info registers -a`


def parse_hmp_registers(text: str
			) -> Dict[int, Tuple[int, bool, Optional[int]]]:
	"""vCPU -> (RIP or EIP, HLT, CR4) from QEMU's `info registers -a`
	dump."""
	regs = {}
	heads = list(_HMP_CPU.finditer(text))
	for i, head in enumerate(heads):
		end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
		m = _HMP_RIP.search(text, head.end(), end)
		if m:
			cr4 = _HMP_CR4.search(text, head.end(), end)
			regs[int(head.group(1))] = (
				int(m.group(1), 16), m.group(2) == '1',
				int(cr4.group(1), 16) if cr4 else None)
	return regs


def parse_threads(text: str) -> List[VCpu]:
	"""Every vCPU of gdb's thread list, with HMP's HLT flag where the
	register dump has the same vCPU at the same RIP."""
	regs = parse_hmp_registers(text)
	cpus = []
	for m in _THREAD.finditer(text):
		cpu, pc = int(m.group(2)), int(m.group(4), 16)
		rip, hlt, cr4 = regs.get(cpu, (None, None, None))
		cpus.append(VCpu(cpu, m.group(3), pc,
				 hlt if rip == pc else None,
				 cr4 if rip == pc else None))
	return sorted(cpus, key=lambda c: c.cpu)


class BreakpointSession:
	"""gdb attached to a running guest, continuing to a hardware breakpoint.

	start() returns once gdb has set the breakpoint (the caller then
	triggers the code path); result() waits for the stop,
	the thread list and gdb's detach, which lets the guest run on.
	"""

	def __init__(self, port: int, address: int, transcript: Path) -> None:
		self.transcript = transcript
		self.argv = ['gdb', '-batch', '-nx',
			     '-ex', 'set pagination off',
			     '-ex', 'set confirm off',
			     '-ex', f'target remote 127.0.0.1:{port}',
			     '-ex', f'hbreak *{address:#x}',
			     '-ex', 'continue',
			     '-ex', 'info threads',
			     '-ex', 'monitor info registers -a',
			     '-ex', 'detach']
		self.proc: Optional[subprocess.Popen] = None
		self.out = transcript.open('w')

	def start(self, timeout: float) -> None:
		self.out.write('$ ' + ' '.join(self.argv) + '\n')
		self.out.flush()
		try:
			self.proc = subprocess.Popen(self.argv, stdout=self.out,
						     stderr=subprocess.STDOUT)
		except FileNotFoundError as e:
			raise LabError('cannot run gdb', 'run `make setup`') from e
		deadline = time.monotonic() + timeout
		while time.monotonic() < deadline:
			if ARMED in self.transcript.read_text():
				return
			if self.proc.poll() is not None:
				break
			time.sleep(0.1)
		raise LabError('gdb did not attach and continue in time '
			       f'(see {self.transcript})')

	def result(self, timeout: float) -> Optional[List[VCpu]]:
		"""The vCPUs at the breakpoint, or None if it was not reached."""
		assert self.proc
		try:
			self.proc.wait(timeout=timeout)
		except subprocess.TimeoutExpired:
			self.proc.kill()
			self.proc.wait()
			return None
		finally:
			self.out.close()
		cpus = parse_threads(self.transcript.read_text())
		return cpus or None

	def kill(self) -> None:
		if self.proc and self.proc.poll() is None:
			self.proc.kill()
			self.proc.wait()
		if not self.out.closed:
			self.out.close()
