# SPDX-License-Identifier: GPL-2.0
"""Lab scenarios as data: adding a scenario adds a record, not code."""

import dataclasses
from typing import Dict


@dataclasses.dataclass(frozen=True)
class Scenario:
	name: str
	description: str
	vcpus: int = 4
	topology: str = ''		# extra -smp properties, e.g. cores=2,threads=2
	memory_mb: int = 1024
	cpu: str = 'max,vendor=GenuineIntel'	# Intel: offline CPUs use mwait
	pattern_mb: int = 0		# 0: a third of guest RAM (-m), rounded up
	swap_mb: int = 1024
	offline_image: str = ''		# CPUs offlined before hibernating
	offline_restore: str = ''	# CPUs offlined in the restore kernel
	online_after: str = ''		# CPUs onlined again after the resume
	cmdline_restore: str = ''	# extra restore kernel parameters
	hlt_proof: bool = True		# stop at swsusp_arch_resume, check vCPUs


def pattern_mb(s: Scenario) -> int:
	return s.pattern_mb or -(-s.memory_mb // 3)


SCENARIOS: Dict[str, Scenario] = {s.name: s for s in (
	Scenario('smoke', '4 vCPUs, 1 GiB, all CPUs online, KASLR on'),
	Scenario('bare', 'the smoke guest with a 32 MiB pattern and no gdb '
		 'stop: the cost of a two-boot cycle itself',
		 pattern_mb=32, hlt_proof=False),
	Scenario('offline-image', 'CPU 2 offline in the image kernel: still '
		 'offline after the resume, then onlined and working',
		 offline_image='2', online_after='2'),
	Scenario('offline-restore', 'CPU 3 offlined in the restore kernel '
		 'before the resume is triggered', offline_restore='3'),
	Scenario('smt-nosmt', 'SMT topology (2 cores x 2 threads), restore '
		 'kernel booted with nosmt', topology='cores=2,threads=2',
		 cmdline_restore='nosmt'),
	Scenario('vcpus-2', '2 vCPUs', vcpus=2),
	Scenario('vcpus-8', '8 vCPUs', vcpus=8),
)}
