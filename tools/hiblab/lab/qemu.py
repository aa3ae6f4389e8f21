# SPDX-License-Identifier: GPL-2.0
"""One QEMU process with two UARTs, and timeouts.

ttyS0 is the kernel console, written by QEMU to a file; ttyS1 is the guest
agent's protocol channel, on QEMU's stdin/stdout.  Every wait has a
deadline; on a timeout the caller gets None and decides the verdict, and
kill() always ends the process.  Both logs are on disk as they arrive, so a
hang leaves its tail behind.
"""

import os
import queue
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.kernel.guest import GuestImage
from hiblab.lab import protocol
from hiblab.lab.scenarios import Scenario, pattern_mb


def free_port() -> int:
	with socket.socket() as s:
		s.bind(('127.0.0.1', 0))
		return s.getsockname()[1]


def uart_args(console_log: Path) -> List[str]:
	"""ttyS0 -> console file, ttyS1 -> stdio (the protocol)."""
	return ['-serial', f'file:{console_log}', '-serial', 'stdio']


def kernel_cmdline(s: Scenario, mode: str, lava: bool = False) -> str:
	"""The guest's command line: console, the agent's hiblab.* parameters
	for this mode (qemu/agent/hiblab-agent.c reads them), and the
	scenario's own kernel parameters (both kernels', then the restore
	kernel's).

	lava: for a farm with one serial console and no host step between the
	boots: the protocol on the console as kernel log records, no "go" to
	wait for, and the agent itself damages the image of a corrupt-*
	scenario."""
	params = [f'hiblab.{k}={v}' for k, v in (
		('mode', mode), ('pattern_mb', pattern_mb(s)),
		('cycles', s.cycles if s.cycles > 1 else ''),
		('trace', 1 if s.trace else ''),
		('churn', 1 if s.churn else ''),
		('offline_image', s.offline_image),
		('offline_restore', s.offline_restore),
		('online_after', s.online_after),
		('proto', 'console' if lava else ''),
		('go', 'auto' if lava else ''),
		('damage', s.corrupt if lava and mode == 'restore' else '')
		) if v]
	extra = [s.cmdline] if s.cmdline else []
	if mode == 'image' and s.cmdline_image:
		extra.append(s.cmdline_image)
	if mode == 'restore' and s.cmdline_restore:
		extra.append(s.cmdline_restore)
	# The agent's lines are kernel log records then: no rate limit.
	kmsg = ['printk.devkmsg=on'] if lava else []
	# The check kernels have our KUnit suites built in (make test boots
	# them with kunit_tool); a lab boot runs none.  A kernel without KUnit
	# ignores the parameter, as it ignores any unknown one with a dot.
	return ' '.join(['console=ttyS0', 'panic=-1', 'no_console_suspend',
			 'loglevel=7', 'kunit.enable=0'] + kmsg + params + extra)


def boot_argv(s: Scenario, guest: GuestImage, accel: str, mode: str,
	      console: Path, disk: Optional[Path] = None,
	      gdb_port: int = 0) -> List[str]:
	"""QEMU's command line for one boot of a scenario's guest in an agent
	mode: the one assembly the lab, the KVM probe and job generators use."""
	smp = f'{s.vcpus}' + (f',{s.topology}' if s.topology else '')
	memory = s.restore_memory_mb or s.memory_mb if mode == 'restore' \
		else s.memory_mb
	argv = ['qemu-system-x86_64', '-nodefaults', '-nographic', '-no-reboot',
		'-accel', accel, '-cpu', s.cpu, '-smp', smp, '-m', str(memory),
		'-kernel', str(guest.bzimage), '-initrd', str(guest.initramfs),
		'-append', kernel_cmdline(s, mode), '-monitor', 'none'] + \
		uart_args(console)
	if disk:
		argv += ['-drive', f'file={disk},format=raw,if=virtio']
	if gdb_port:
		argv += ['-gdb', f'tcp:127.0.0.1:{gdb_port}']
	return argv


class Guest:
	def __init__(self, argv: List[str], log: Path, console: Path) -> None:
		self.argv = argv
		self.log = log
		self.console = console
		self.lines: List[str] = []
		self._queue: 'queue.Queue[Optional[str]]' = queue.Queue()
		log.parent.mkdir(parents=True, exist_ok=True)
		self._log = log.open('w')
		self._log.write('$ ' + ' '.join(argv) + '\n')
		try:
			self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
						     stdout=subprocess.PIPE,
						     stderr=subprocess.STDOUT)
		except FileNotFoundError as e:
			raise LabError(f'cannot run {argv[0]}', 'run `make setup` '
				       '(package qemu-system-x86)') from e
		self.started = time.monotonic()
		self._reader = threading.Thread(target=self._read, daemon=True)
		self._reader.start()

	def _read(self) -> None:
		assert self.proc.stdout
		for raw in self.proc.stdout:
			line = raw.decode(errors='replace').rstrip('\r\n')
			self._log.write(line + '\n')
			self._log.flush()
			self._queue.put(line)
		self._queue.put(None)

	def wait_for(self, match: Callable[[str], bool],
		     timeout: float) -> Optional[str]:
		"""The first new line that matches, or None on timeout or exit."""
		deadline = time.monotonic() + timeout
		while True:
			left = deadline - time.monotonic()
			if left <= 0:
				return None
			try:
				line = self._queue.get(timeout=left)
			except queue.Empty:
				return None
			if line is None:
				self._queue.put(None)
				return None
			self.lines.append(line)
			if match(line):
				return line

	def wait_for_event(self, names: Tuple[str, ...], timeout: float
			   ) -> Optional[str]:
		"""The agent line of the first event named in names, parsed as
		the judges parse it; None on timeout or exit."""
		def match(line: str) -> bool:
			e = protocol.parse_line(line)
			return e is not None and e.name in names
		return self.wait_for(match, timeout)

	def send(self, text: str) -> None:
		assert self.proc.stdin
		self.proc.stdin.write(text.encode())
		self.proc.stdin.flush()

	def wait_exit(self, timeout: float) -> Optional[int]:
		"""Drains the console until QEMU exits; None on timeout."""
		self.wait_for(lambda _: False, timeout)
		try:
			rc = self.proc.wait(timeout=max(0.0, 5.0))
		except subprocess.TimeoutExpired:
			return None
		self._reader.join(timeout=5)
		while not self._queue.empty():
			line = self._queue.get()
			if line is not None:
				self.lines.append(line)
		return rc

	def kill(self) -> None:
		if self.proc.poll() is None:
			self.proc.kill()
			self.proc.wait()
		self._reader.join(timeout=5)
		self._log.close()

	def console_lines(self) -> List[str]:
		try:
			text = self.console.read_text(errors='replace')
		except OSError:
			return []
		return [l.rstrip('\r') for l in text.splitlines()]

	def tail(self, n: int = 10) -> List[str]:
		"""The end of the kernel console: what a hang or panic left."""
		return self.console_lines()[-n:] or self.lines[-n:]

	@property
	def seconds(self) -> float:
		return time.monotonic() - self.started


def kvm_usable() -> str:
	"""'' when /dev/kvm can be opened, else why not."""
	try:
		fd = os.open('/dev/kvm', os.O_RDWR)
	except OSError as e:
		return f'/dev/kvm: {e.strerror}'
	os.close(fd)
	return ''
