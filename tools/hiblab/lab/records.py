# SPDX-License-Identifier: GPL-2.0
"""What a lab cycle's boots left behind, as typed records.

lab.cycle runs the boots and writes one record.json per cycle beside the
boots' logs; lab.judge turns a scenario and its CycleRecord into verdicts.
The judges read only records, so a captured results directory of a real
run (lab/test_data/cycles/) is judged exactly as a live run is.

record.json holds what is not in a log (exit codes, host times, the vCPUs
at the breakpoint resolved against the restore kernel's System.map and
code); console and agent lines are read back from the logs themselves.
"""

import dataclasses
import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.lab import protocol
from hiblab.lab.scenarios import Scenario

RECORD = 'record.json'
# The events a boot's first wait ends on, by kernel: what the runner waits
# for before it acts (let the save run, or arm the breakpoint and say go).
IMAGE_READY = ('hibernating', 'checker-error', 'refused')
RESTORE_READY = ('ready-to-resume', 'checker-error')
# printk needles for per-phase times.  Each boot has its own clock: the
# image kernel's before the power-off, the restore kernel's up to the jump,
# then the image kernel's clock again after the resume.
IMAGE_PHASES = {
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
class VCpuRecord:
	"""One vCPU at the restore kernel's swsusp_arch_resume breakpoint."""
	cpu: int
	pc: int
	state: str		# gdb's thread state: 'halted' or 'running'
	hlt: Optional[bool]	# HLT= of `info registers -a`; None: not listed
	in_text: bool		# pc in the restore kernel's text
	symbol: str		# 'function+0xoff', '' outside the text
	function: str
	hlt_before: bool	# the instruction ending at pc is a HLT
	# objdump lines around pc ('>' marks pc's), for people reading a report
	code: Tuple[str, ...] = ()
	cr4: Optional[int] = None	# CR4 of `info registers -a`; None: not
					# listed (or a record made before CR4 was)


@dataclasses.dataclass
class BootRecord:
	"""One QEMU boot: how it ended, its host times, its logs."""
	name: str		# log stem: 'boot1-image', 'boot2-restore', ...
	kernel: str		# 'image' or 'restore'
	cycle: int		# 0 for the image boot, n for the n-th restore
	argv: List[str]
	ready: Optional[str]	# event the first wait ended on; None: none came
	exit_code: Optional[int]	# None: QEMU did not exit in time (killed)
	times: Dict[str, float]	# host wall-clock seconds, by phase
	deadline: float = 0.0	# how long the runner waited for QEMU to exit
	started: float = 0.0	# host seconds from the cycle's start to QEMU's
	gdb: str = ''		# gdb transcript file, if a breakpoint was armed
	# None: no breakpoint armed; []: armed but never hit.
	vcpus: Optional[List[VCpuRecord]] = None
	console: List[str] = dataclasses.field(default_factory=list,
						repr=False, compare=False)
	agent: List[str] = dataclasses.field(default_factory=list,
					      repr=False, compare=False)
	results: Path = dataclasses.field(default=Path('.'), repr=False,
					  compare=False)

	@property
	def console_file(self) -> Path:
		return self.results / f'{self.name}-console.log'

	@property
	def agent_file(self) -> Path:
		return self.results / f'{self.name}-agent.log'

	def events(self) -> List[protocol.Event]:
		return protocol.parse_log(self.agent)

	def phases(self) -> Dict[str, float]:
		"""Console timestamps of the phases this boot's kernels print."""
		needles = IMAGE_PHASES if self.kernel == 'image' else \
			{**RESTORE_PHASES, **RESUMED_PHASES}
		return protocol.kernel_stamps(self.console, needles)

	def read_logs(self) -> None:
		self.console = _lines(self.console_file)
		# The agent log's first line is the QEMU command ('$ ...').
		self.agent = [l for l in _lines(self.agent_file)
			      if not l.startswith('$ ')]


@dataclasses.dataclass
class CycleRecord:
	scenario: str
	accel: str
	boots: List[BootRecord]
	corruption: Optional[str] = None	# swap.corrupt(), the agent's damaged
	seconds: float = 0.0	# wall time of the whole run
	error: str = ''		# a LabError that stopped the run

	def save(self, results: Path) -> None:
		data = dataclasses.asdict(self)
		for b in data['boots']:
			for k in ('console', 'agent', 'results'):
				del b[k]
		(results / RECORD).write_text(json.dumps(data, indent=1) + '\n')


@dataclasses.dataclass
class ScenarioRun:
	"""A scenario's last attempt in a lab run: where, and its record."""
	scenario: Scenario
	results: Path
	record: CycleRecord


def _lines(path: Path) -> List[str]:
	try:
		text = path.read_text(errors='replace')
	except OSError:
		return []
	return [l.rstrip('\r') for l in text.splitlines()]


def load(results: Path) -> CycleRecord:
	"""A cycle's record and its boots' logs from a results directory."""
	try:
		data = json.loads((results / RECORD).read_text())
		boots = []
		for b in data.pop('boots'):
			vcpus = b.pop('vcpus')
			boot = BootRecord(**b, results=results, vcpus=None if
					  vcpus is None else
					  [VCpuRecord(**{**c, 'code': tuple(
						  c.get('code', ()))})
					   for c in vcpus])
			boot.read_logs()
			boots.append(boot)
		return CycleRecord(boots=boots, **data)
	except (OSError, ValueError, TypeError, KeyError) as e:
		raise LabError(f'{results / RECORD}: not a cycle record ({e})',
			       'rerun the scenario; records of runs before '
			       'record.json existed cannot be judged') from e
