# SPDX-License-Identifier: GPL-2.0
"""Lab scenarios as data: adding a scenario adds a record, not code."""

import dataclasses
import random
from typing import Dict, List, Optional, Tuple

from hiblab.kernel.variants import (DEBIAN, DEBIAN_6_12,
				    FOREIGN_RESTORE_MAGIC, HEADER_BEFORE_LEVELS,
				    LOCKDEP_TRACE, MAINLINE_CORE_ONLINE,
				    ONLY_6_12, ONLY_7_3, PLAIN,
				    SERIES_6_12, Build)
from hiblab.lab.swap import DAMAGED_WORDS

# Scenario.refusal for an image the kernel does not even find: it must not
# start a resume ("resume from hibernation") and must boot on.
NO_IMAGE = 'no image found'
# Scenario.paging: the paging level both kernels must run.
PAGING_LEVELS = (0, 4, 5)
# The banner of a kernel Debian built (its maintainers' address); ours say
# who built them on which machine.
DEBIAN_BANNER = '(debian-kernel@lists.debian.org)'
# The banner of our build of 6.12.118 (setlocalversion's '+': a tree past
# its release tag); Debian's says '6.12.118+deb12-amd64 ('.
OURS_6_12 = 'Linux version 6.12.118+ ('
# Scenario.resets: why an image crossing a paging-level change resets the
# machine when Debian's kernel (without "Refuse an image saved with a
# different number of paging levels") is on one side.
DEBIAN_WROTE_NO_LEVELS = (
	'Debian\'s kernel does not record the paging levels in the header, '
	'and the fix reads a 0 as "not recorded, accept" so that the images '
	'of kernels without it still restore')
DEBIAN_READS_NO_LEVELS = (
	'Debian\'s kernel does not compare the levels the header records '
	'with its own')


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
	cmdline: str = ''		# extra parameters of both kernels
	cmdline_image: str = ''		# extra image kernel parameters
	cmdline_restore: str = ''	# extra restore kernel parameters
	hlt_proof: bool = True		# stop at swsusp_arch_resume, check vCPUs
	cycles: int = 1			# hibernations in one image kernel's life
	trace: bool = False		# power:suspend_resume on across the cycle
	churn: bool = False		# CPU hotplug churn while hibernating
	corrupt: str = ''		# damage the image between the boots
	damaged_words: int = 0		# pattern words that damage leaves bad
					# in a restored image
	restore_memory_mb: int = 0	# -m of the restore boot (0: memory_mb)
	refusal: str = ''		# the restore kernel must print one of these
					# ('|'-separated, any case) and boot fresh
	save_fails: str = ''		# the save must fail with this return value
	build: Build = PLAIN		# the kernel that hibernates
	restore_build: Optional[Build] = None	# None: the same kernel
	bases: Tuple[str, ...] = ()	# the bases it runs on; (): every one
	paging: int = 0			# 4 or 5: the level both kernels must
					# prove they ran (0: no claim)
	paging_restore: int = 0		# the restore kernel's, if it differs
	says: Tuple[str, ...] = ()	# console lines (substrings) both
					# kernels must print: the configuration
					# proven from the guest
	image_says: Tuple[str, ...] = ()	# ... the image kernel must
	restore_says: Tuple[str, ...] = ()	# ... the restore kernel must
	# Registers ('task pkru') the image kernel is known to lose across
	# the cycle (a kernel without a fix of the series): exactly these
	# must differ.
	lost_registers: Tuple[str, ...] = ()
	# Why the restore is known to reset the machine at the jump into the
	# image (one kernel lacks a check of the series): the cell must load
	# the image and reset, no more and no less.
	resets: str = ''

	@property
	def restore(self) -> Build:
		return self.restore_build or self.build


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
	Scenario('offline-restore-mainline', 'CPU 3 offlined in the restore '
		 'kernel, whose cpuhp_smt_enable() follows mainline and leaves '
		 'it offline', offline_restore='3', build=MAINLINE_CORE_ONLINE,
		 bases=ONLY_6_12),
	Scenario('smt-nosmt', 'SMT topology (2 cores x 2 threads), restore '
		 'kernel booted with nosmt', topology='cores=2,threads=2',
		 cmdline_restore='nosmt'),
	Scenario('maxcpus', 'restore kernel booted with maxcpus=2: CPUs 2-3 '
		 'were never started there', cmdline_restore='maxcpus=2'),
	Scenario('maxcpus-mainline', 'maxcpus=2 on a restore kernel whose '
		 'cpuhp_smt_enable() follows mainline: CPUs 2-3 stay in '
		 'wait-for-SIPI', cmdline_restore='maxcpus=2',
		 build=MAINLINE_CORE_ONLINE, bases=ONLY_6_12),
	Scenario('three-cycles', 'three hibernations in one image kernel '
		 'lifetime, each restored by a freshly booted restore kernel',
		 cycles=3),
	Scenario('lockdep-trace', 'RANDOMIZE_MEMORY with DEBUG_LOCK_ALLOC '
		 '(lockdep) and a trace event enabled across the cycle',
		 build=LOCKDEP_TRACE, trace=True),
	Scenario('corrupt-signature', 'the swap signature is overwritten '
		 'between the boots: no image is found', corrupt='signature',
		 # 6.12 prints nothing then, even with pm_debug_messages: the
		 # proof is that no resume starts.
		 refusal=NO_IMAGE, hlt_proof=False),
	Scenario('corrupt-header', 'the image header\'s RESTORE_MAGIC is '
		 'inverted between the boots: the header is refused',
		 corrupt='header', refusal='Unrecognized hibernate image header '
		 'format!', hlt_proof=False),
	Scenario('corrupt-jump-phys', 'the image header\'s jump_address_phys '
		 'is moved by 2M + 4K between the boots, magic and memory map '
		 'intact: the header is refused for its addresses (the '
		 'header-addresses series); without the check the restore jumps through the wrong '
		 '2M page', corrupt='jump-phys',
		 refusal='differ below 2M',
		 hlt_proof=False),
	Scenario('corrupt-data', 'one data page of the image is damaged '
		 'between the boots: loading the image fails',
		 corrupt='data', refusal='Invalid image CRC32|decompression '
		 'failed|Invalid LZO compressed length|Invalid LZO uncompressed '
		 'length', hlt_proof=False),
	Scenario('memory-changed', 'the restore boot has 1536 MiB instead of '
		 '1 GiB: the e820 map differs', restore_memory_mb=1536,
		 refusal='Hibernate inconsistent memory map detected!',
		 hlt_proof=False),
	Scenario('foreign-magic', 'the restore kernel is built with a '
		 'different RESTORE_MAGIC: the header is refused',
		 restore_build=FOREIGN_RESTORE_MAGIC,
		 refusal='Unrecognized hibernate image header format!',
		 hlt_proof=False),
	# The paging-level fix keeps RESTORE_MAGIC: images cross a kernel
	# update in both directions (hibernate, install, resume).
	Scenario('old-header-image', 'the image kernel writes the header as '
		 'a kernel before the paging-level fix does (no pgtable_levels): '
		 'the series\' kernel restores it', build=HEADER_BEFORE_LEVELS,
		 restore_build=PLAIN),
	Scenario('old-header-restore', 'the restore kernel reads the header '
		 'as a kernel before the paging-level fix does: it restores the '
		 'series\' image', restore_build=HEADER_BEFORE_LEVELS),
	# Hibernate, upgrade, resume: Debian's own kernel package of the
	# base and the series' kernel, each restoring the other's image.
	Scenario('debian-to-topic', 'Debian\'s own kernel of the base (its '
		 'package, config and modules) writes the image, the series\' '
		 'kernel restores it: hibernate, install the update, resume.  '
		 'Debian\'s kernel lacks "x86/power: Save and restore PKRU '
		 'across suspend and hibernation": its hibernating task comes '
		 'back with the restore kernel\'s PKRU',
		 build=DEBIAN, restore_build=PLAIN,
		 image_says=(DEBIAN_BANNER,), lost_registers=('task pkru',)),
	Scenario('topic-to-debian', 'the series\' kernel writes the image, '
		 'Debian\'s own kernel of the base restores it: the way back '
		 '(the update removed, or the old kernel booted)',
		 restore_build=DEBIAN, restore_says=(DEBIAN_BANNER,)),
	# Across bases: Debian 12's kernel and the 7.3 series' kernel.
	Scenario('debian-6.12-to-topic', 'Debian 12\'s own kernel (6.12) '
		 'writes the image, the series\' 7.3 kernel restores it: the '
		 'upgrade to a newer kernel line across a hibernation.  Debian\'s '
		 'hibernating task comes back with the restore kernel\'s PKRU, '
		 'as in debian-to-topic', build=DEBIAN_6_12, restore_build=PLAIN,
		 bases=ONLY_7_3, image_says=(DEBIAN_BANNER,),
		 lost_registers=('task pkru',)),
	Scenario('topic-to-debian-6.12', 'the series\' 7.3 kernel writes the '
		 'image, Debian 12\'s own kernel (6.12) restores it: back to '
		 'the older line', restore_build=DEBIAN_6_12, bases=ONLY_7_3,
		 restore_says=(DEBIAN_BANNER,)),
	# Across bases, both kernels ours: the 6.12 series (the backport) and
	# the 7.3 series, each restoring the other's image.
	Scenario('topic-6.12-to-topic', 'the 6.12 series\' kernel writes the '
		 'image, the 7.3 series\' kernel restores it: the upgrade to '
		 'the newer line, both kernels with the series',
		 build=SERIES_6_12, restore_build=PLAIN, bases=ONLY_7_3,
		 image_says=(OURS_6_12,)),
	Scenario('topic-to-topic-6.12', 'the 7.3 series\' kernel writes the '
		 'image, the 6.12 series\' kernel restores it: back to the '
		 'older line', restore_build=SERIES_6_12, bases=ONLY_7_3,
		 restore_says=(OURS_6_12,)),
	# Paging levels across Debian's kernel and ours: the series' refusal
	# (paging-5-to-4, paging-4-to-5) needs the fix in both kernels, the
	# one that records the levels and the one that compares them.
	Scenario('debian-5-to-topic-4', 'Debian\'s own kernel writes the '
		 'image under 5-level paging, the series\' kernel booted with '
		 'no5lvl restores it: the machine resets at the jump',
		 build=DEBIAN, restore_build=PLAIN, cmdline_restore='no5lvl',
		 paging=5, paging_restore=4, hlt_proof=False,
		 image_says=(DEBIAN_BANNER,), resets=DEBIAN_WROTE_NO_LEVELS),
	Scenario('debian-4-to-topic-5', 'Debian\'s own kernel booted with '
		 'no5lvl writes the image, the series\' kernel restores it '
		 'under 5-level paging: the machine resets at the jump',
		 build=DEBIAN, restore_build=PLAIN, cmdline_image='no5lvl',
		 paging=4, paging_restore=5, hlt_proof=False,
		 image_says=(DEBIAN_BANNER,), resets=DEBIAN_WROTE_NO_LEVELS),
	Scenario('topic-5-to-debian-4', 'the series\' kernel writes the '
		 'image under 5-level paging, Debian\'s own kernel booted with '
		 'no5lvl restores it: the machine resets at the jump',
		 restore_build=DEBIAN, cmdline_restore='no5lvl', paging=5,
		 paging_restore=4, hlt_proof=False,
		 restore_says=(DEBIAN_BANNER,), resets=DEBIAN_READS_NO_LEVELS),
	Scenario('topic-4-to-debian-5', 'the series\' kernel booted with '
		 'no5lvl writes the image, Debian\'s own kernel restores it '
		 'under 5-level paging: the machine resets at the jump',
		 restore_build=DEBIAN, cmdline_image='no5lvl', paging=4,
		 paging_restore=5, hlt_proof=False,
		 restore_says=(DEBIAN_BANNER,), resets=DEBIAN_READS_NO_LEVELS),
	Scenario('other-restore-kernel', 'the restore kernel is a different, '
		 'compatible binary (lockdep and tracing on, so its text layout '
		 'differs): the cycle must be fully green',
		 restore_build=LOCKDEP_TRACE),
	Scenario('image-too-big', 'a 256 MiB swap disk for a 342 MiB pattern: '
		 'the save fails with -ENOSPC, the system thaws, nothing is lost',
		 swap_mb=256, save_fails='-28', hlt_proof=False),
	Scenario('vcpus-2', '2 vCPUs', vcpus=2),
	Scenario('vcpus-8', '8 vCPUs', vcpus=8),
	# Both bases build 5-level support (6.12: qemu/bases/6.12.config).
	Scenario('la57', '5-level paging in both kernels on a CPU with LA57',
		 paging=5),
	Scenario('no5lvl', 'both kernels booted with no5lvl on a CPU with '
		 'LA57: 4-level paging in a kernel built for 5',
		 cmdline='no5lvl', paging=4),
	# An image's page tables work only at the depth they were built for,
	# and a restore kernel cannot switch the depth on the way into them.
	Scenario('paging-5-to-4', 'the image kernel runs 5-level paging, '
		 'the restore kernel is booted with no5lvl: the image is refused',
		 cmdline_restore='no5lvl', paging=5,
		 paging_restore=4, hlt_proof=False,
		 refusal='Hibernate image uses 5-level paging'),
	Scenario('paging-4-to-5', 'the image kernel is booted with no5lvl, '
		 'the restore kernel runs 5-level paging: the image is refused',
		 cmdline_image='no5lvl', paging=4, paging_restore=5,
		 hlt_proof=False, refusal='Hibernate image uses 4-level paging'),
	Scenario('pti', 'page table isolation forced on (pti=on) in both '
		 'kernels, on a CPU without PCID',
		 # QEMU 7.2's TCG has no PCID at all ("TCG doesn't support
		 # requested feature: CPUID.01H:ECX.pcid"); -pcid keeps the
		 # scenario what it says under KVM too.
		 cpu='max,vendor=GenuineIntel,-pcid', cmdline='pti=on',
		 says=('Kernel/User page tables isolation: enabled',)),
	Scenario('debug-pagealloc', 'DEBUG_PAGEALLOC on in both kernels (a '
		 '4K direct map, freed pages unmapped) and the boot-time W+X '
		 'check', cmdline='debug_pagealloc=on',
		 says=('x86/mm: Checked W+X mappings: passed',)),
	Scenario('above-4g', '5.5 GiB: RAM on both sides of the 32-bit PCI '
		 'hole, so the direct and identity maps have several ranges; '
		 '512 MiB pattern', memory_mb=5632, pattern_mb=512, swap_mb=2048,
		 says=('BIOS-e820: [mem 0x0000000100000000-',)),
	# load_image() (kernel/power/swap.c) checks nothing for an
	# uncompressed image.  The damage hits a page of the agent's
	# pattern (swap.py): a kernel page would crash the restored
	# kernel or not, by layout.  A kernel that starts refusing
	# such images (a CRC for nocompress) fails 'restored' here.
	Scenario('nocompress-corrupt', 'an uncompressed image '
		 '(hibernate=nocompress) with one page of the pattern damaged '
		 'between the boots: loaded unchecked (no CRC32 without '
		 'compression) and restored, with exactly the damaged words '
		 'wrong', cmdline='hibernate=nocompress', corrupt='data',
		 damaged_words=DAMAGED_WORDS, says=('image data pages (',)),
)}


def runs_on(s: Scenario, base: str) -> bool:
	return not s.bases or base in s.bases


def for_base(base: str) -> List[Scenario]:
	"""The scenarios that run on a base, in matrix order."""
	return [s for s in SCENARIOS.values() if runs_on(s, base)]


def stress_scenarios(count: int, seed: int) -> List[Scenario]:
	"""count smoke cycles with seeded random CPU offline patterns in
	either kernel, and hotplug churn while the image is written."""
	rng = random.Random(seed)
	base = SCENARIOS['smoke']
	out = []
	for i in range(1, count + 1):
		offline = [str(c) for c in range(1, base.vcpus) if rng.random() < .3]
		restore = [str(c) for c in range(1, base.vcpus) if rng.random() < .3]
		out.append(dataclasses.replace(
			base, name=f'stress-{i:02d}', description=f'seed {seed} '
			f'cycle {i}: offline in the image kernel [{",".join(offline)}]'
			f', in the restore kernel [{",".join(restore)}], churn',
			offline_image=','.join(offline),
			online_after=','.join(offline),
			offline_restore=','.join(restore), churn=True))
	return out
