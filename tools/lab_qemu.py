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
from typing import Callable, List, Optional

from lab_errors import LabError


def free_port() -> int:
	with socket.socket() as s:
		s.bind(('127.0.0.1', 0))
		return s.getsockname()[1]


def uart_args(console_log: Path) -> List[str]:
	"""ttyS0 -> console file, ttyS1 -> stdio (the protocol)."""
	return ['-serial', f'file:{console_log}', '-serial', 'stdio']


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
