# SPDX-License-Identifier: GPL-2.0
"""Lab scenarios as LAVA jobs, and a LAVA job's log back into lab records.

One job per scenario, written from the same Scenario data and the same
QEMU argument assembly (qemu.boot_argv, kernel_cmdline) as the local
lab, so the two cannot drift:

  deploy  image kernel (its command line in the kernel's image_arg),
          initramfs, an empty swap disk (xz)
  boot    qemu                       test  the agent hibernates; power-off
  deploy  restore kernel + initramfs (the disk stays attached as written)
  boot    qemu                       test  the resume, the checks; power-off
  (one more deploy/boot/test per further hibernation of the scenario)

Inside LAVA there is one serial line and no host step between the boots:
the agent speaks on the console (hiblab.proto=console), triggers the
resume itself (hiblab.go=auto) and damages the image itself for the
refusal scenarios (hiblab.damage=...).  Its lines are kernel log records
(/dev/kmsg), so a printk cannot cut one in two as it can cut a line
written to the console.  The interactive tests only follow the boots;
the verdicts come from the job's log, split into the lab's BootRecords and
judged by lab.judge like a local run.  No gdbstub exists
there, so the vCPU position check (hlt-parking) stays in the local lab and
a LAVA run says so.
"""

import copy
import dataclasses
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

from hiblab.errors import LabError
from hiblab.kernel.guest import GuestImage
from hiblab.lab import qemu, scenarios
from hiblab.lab.scenarios import Scenario
from hiblab.verdict import FAIL, PASS, Verdict

DEVICE_TYPE = 'qemu'
# QEMU options that take no value in boot_argv().
FLAGS = ('-nodefaults', '-nographic', '-no-reboot')
# What the qemu device type (lava-server's qemu.jinja2) already passes:
# -nographic puts the one serial line on LAVA's connection, -m comes from
# the job context's `memory`.
TEMPLATE = ('-nographic', '-monitor', '-m')
# The local lab's own plumbing: a second UART for the protocol, no default
# devices, the gdbstub.  A LAVA device has its console and nothing else.
LOCAL_ONLY = ('-nodefaults', '-serial', '-gdb')
# Supplied by the deploy action's image_arg for each image.
IMAGES = ('-kernel', '-initrd', '-append', '-drive')
# The interactive tests need prompts; the agent has no shell, so this one
# never matches and every step says wait_for_prompt: false.
NO_SHELL = 'hiblab-agent-runs-no-shell'
PANIC = 'Kernel panic'
POWER_OFF = 'reboot: Power down'
# Minutes, sized as the local lab's deadlines (lab.cycle) under TCG.
DEPLOY_MINUTES, BOOT_MINUTES, TEST_MINUTES = 5, 5, 12
BROKEN = 'broken-timeout'


@dataclasses.dataclass(frozen=True)
class Artifacts:
	"""Where a job's files are: URLs a LAVA worker downloads."""
	image_kernel: str
	image_ramdisk: str
	restore_kernel: str
	restore_ramdisk: str
	swap: str		# xz-compressed, swap_mb of zeros


def for_base(base: str) -> List[Scenario]:
	"""The base's scenarios LAVA can judge.  A known reset
	(Scenario.resets) is judged by QEMU's exit at the jump, which an
	interactive test never sees and LAVA's log does not hold: make
	qemu-hibernate runs those."""
	return [s for s in scenarios.for_base(base) if not s.resets]


def swap_name(s: Scenario) -> str:
	return f'swap-{s.swap_mb}M.img.xz'


def artifacts(s: Scenario, url: str) -> Artifacts:
	"""A scenario's files under an artifacts directory at url, laid out
	as `make lava-jobs` writes it: <build>/bzImage, <build>/initramfs.cpio
	(build: scenarios.Build.name), swap-<MiB>M.img.xz."""
	return Artifacts(f'{url}/{s.build.name}/bzImage',
			 f'{url}/{s.build.name}/initramfs.cpio',
			 f'{url}/{s.restore.name}/bzImage',
			 f'{url}/{s.restore.name}/initramfs.cpio',
			 f'{url}/{swap_name(s)}')


def options(argv: List[str]) -> List[Tuple[str, str]]:
	"""boot_argv()'s options as (option, value) pairs ('' for flags)."""
	out, i = [], 1
	while i < len(argv):
		if argv[i] in FLAGS:
			out.append((argv[i], ''))
			i += 1
		else:
			out.append((argv[i], argv[i + 1]))
			i += 2
	return out


def _argv(s: Scenario, accel: str, mode: str) -> List[str]:
	dummy = GuestImage(Path('.'), Path('bzImage'), Path('initramfs'),
			   Path('System.map'))
	return qemu.boot_argv(s, dummy, accel, mode, Path('/dev/null'),
				  Path('swap.img'))


def context(s: Scenario, accel: str) -> Dict[str, object]:
	"""The job context for lava-server's qemu device type: what the lab's
	own QEMU command line has and the template does not."""
	extra = [f'{o} {v}'.strip() for o, v in options(_argv(s, accel, 'image'))
		 if o not in TEMPLATE + LOCAL_ONLY + IMAGES]
	# no_kvm: the template would add `-cpu host -enable-kvm`; the lab
	# chooses its CPU model and accelerator itself (-cpu, -accel).
	return {'arch': 'x86_64', 'memory': s.memory_mb, 'no_kvm': True,
		'extra_options': extra}


def kernel_arg(s: Scenario, accel: str, mode: str) -> str:
	"""The kernel's image_arg: the command line of this boot, and any
	option whose value differs from the image boot's (the restore boot's
	-m): QEMU takes the last of a repeated -m."""
	first = dict(options(_argv(s, accel, 'image')))
	mine = [f'{o} {v}' for o, v in options(_argv(s, accel, mode))
		if o not in IMAGES + LOCAL_ONLY and first.get(o) != v]
	cmdline = qemu.kernel_cmdline(s, mode, lava=True)
	return ' '.join(['-kernel {kernel}'] + mine + [f'-append "{cmdline}"'])


def _step(name: str, success: str, failures: Iterable[str],
	  record: Iterable[str] = ()) -> dict:
	"""One interactive step: wait for success.  A `failures` match ends
	the job (nothing sensible follows it); a `record` match only fails the
	step, so the boot goes on and the log holds all of the evidence for
	the lab's judges (a bad pattern word, and then the tmpfs, CPU and
	worker reports too)."""
	return {'name': name, 'command': None, 'wait_for_prompt': False,
		'successes': [{'message': success}],
		'failures': [{'message': f, 'exception': 'TestError',
			      'error': f'{name}: matched "{f}"'}
			     for f in failures] +
		[{'message': f} for f in record]}


AGENT_FAILED = 'HIBLAB (checker-error|refused)'
BAD_DATA = 'HIBLAB (pattern-check|tmpfs-check) .*bad_words=[1-9]|' \
	'HIBLAB worker-stuck'


def image_script(s: Scenario) -> List[dict]:
	steps = [_step('hibernating', 'HIBLAB hibernating',
		       [AGENT_FAILED, PANIC])]
	if s.save_fails:
		return steps + [_step('save-failed', 'HIBLAB resumed round=1 '
				      f'ret={s.save_fails}', [PANIC]),
				_step('done', 'HIBLAB done', [PANIC], [BAD_DATA])]
	return steps + [_step('power-off', POWER_OFF,
			      ['HIBLAB resumed', PANIC])]


def restore_script(s: Scenario, n: int) -> List[dict]:
	# The agent damages the image (hiblab.damage) before it is ready.
	steps = [_step('damaged', 'HIBLAB damaged', [AGENT_FAILED, PANIC])
		 ] if s.corrupt else []
	steps.append(_step('ready-to-resume', 'HIBLAB ready-to-resume',
			   [AGENT_FAILED, PANIC]))
	if s.refusal:
		return steps + [_step('refused', 'HIBLAB no-image',
				      ['HIBLAB resumed', PANIC]),
				_step('power-off', POWER_OFF, [PANIC])]
	steps.append(_step('resumed', f'HIBLAB resumed round={n} ret=0',
			   ['HIBLAB no-image', PANIC]))
	if n < s.cycles:
		steps.append(_step('hibernating', f'HIBLAB hibernating '
				   f'round={n + 1}', [AGENT_FAILED, PANIC],
				   [BAD_DATA]))
	else:
		steps.append(_step('done', 'HIBLAB done', [AGENT_FAILED, PANIC],
				   [BAD_DATA]))
	return steps + [_step('power-off', POWER_OFF, [PANIC])]


def _minutes(m: int) -> dict:
	return {'minutes': m}


def _boot(name: str, script: List[dict]) -> List[dict]:
	return [{'boot': {'method': 'qemu', 'media': 'tmpfs',
			  'timeout': _minutes(BOOT_MINUTES)}},
		{'test': {'timeout': _minutes(TEST_MINUTES), 'interactive': [
			{'name': name, 'prompts': [NO_SHELL],
			 'script': script}]}}]


def boots(s: Scenario) -> int:
	"""QEMU boots in the job: the lab's judge.boots_wanted()."""
	if s.save_fails:
		return 1
	return 2 if s.refusal else 1 + s.cycles


def job(s: Scenario, base: str, accel: str, art: Artifacts) -> dict:
	"""The LAVA job definition of one scenario on one base."""
	deploy = {'to': 'tmpfs', 'timeout': _minutes(DEPLOY_MINUTES),
		  'images': {
			  'kernel': {'url': art.image_kernel,
				     'image_arg': kernel_arg(s, accel, 'image')},
			  'ramdisk': {'url': art.image_ramdisk,
				      'image_arg': '-initrd {ramdisk}'},
			  'disk': {'url': art.swap, 'compression': 'xz',
				   'image_arg': '-drive file={disk},format=raw,'
				   'if=virtio'}}}
	actions = [{'deploy': deploy}] + _boot('image', image_script(s))
	for n in range(1, boots(s)):
		# Only kernel and initramfs: the written disk stays attached.
		actions.append({'deploy': {
			'to': 'tmpfs', 'timeout': _minutes(DEPLOY_MINUTES),
			'images': {
				'kernel': {'url': art.restore_kernel,
					   'image_arg': kernel_arg(s, accel,
								   'restore')},
				'ramdisk': {'url': art.restore_ramdisk,
					    'image_arg': '-initrd {ramdisk}'}}}})
		actions += _boot(f'restore-{n}', restore_script(s, n))
	per_boot = DEPLOY_MINUTES + BOOT_MINUTES + TEST_MINUTES
	return {
		'job_name': f'hibernate-lab {base} {s.name}: {s.description}'
		[:200],
		'device_type': DEVICE_TYPE,
		'visibility': 'public',
		'priority': 'medium',
		'timeouts': {'job': _minutes(per_boot * boots(s)),
			     'connection': _minutes(TEST_MINUTES)},
		'context': context(s, accel),
		'metadata': {'hibernate-lab.base': base,
			     'hibernate-lab.scenario': s.name},
		'actions': actions,
	}


def broken(good: dict) -> dict:
	"""A copy whose first test outlasts the job: lava-server refuses it
	on submission, so the offline check must too."""
	bad = copy.deepcopy(good)
	bad['job_name'] = f'{BROKEN}: {good["job_name"]}'[:200]
	limit = bad['timeouts']['job']['minutes']
	test = next(a['test'] for a in bad['actions'] if 'test' in a)
	test['timeout'] = _minutes(limit + 1)
	return bad


def yaml_module():
	try:
		import yaml
	except ImportError as e:
		raise LabError('python3-yaml is missing', 'run `make setup` '
			       '(package lava-common)') from e
	return yaml


def dump(data: dict) -> str:
	return yaml_module().safe_dump(data, sort_keys=False, width=1000)


def validate(data: dict) -> str:
	"""'' if lava-server would accept the job (lava_common's strict
	schema, what submission runs), else why not."""
	try:
		from lava_common.schemas import validate as lava_validate
		from voluptuous import Invalid
	except ImportError as e:
		raise LabError('lava_common is missing (LAVA job validation)',
			       'run `make setup` (package lava-common)') from e
	try:
		lava_validate(data, strict=True)
	except Invalid as e:
		return f'{e.msg} at {"/".join(str(p) for p in e.path)}'
	return ''


def check_files(paths: List[Path]) -> List[Verdict]:
	"""Every job file valid, and a broken copy of the first refused."""
	bad, first = [], None
	for p in paths:
		data = yaml_module().safe_load(p.read_text())
		first = first or data
		why = validate(data)
		if why:
			bad.append(f'{p.name}: {why}')
	v = [Verdict('jobs-valid', FAIL if bad or not paths else PASS,
		     '; '.join(bad) if bad else f'{len(paths)} jobs valid '
		     '(lava-common\'s strict schema, as on submission)')]
	if first:
		why = validate(broken(first))
		v.append(Verdict('broken-job-refused', PASS if why else FAIL,
				 f'refused: {why}' if why else 'a job whose test '
				 'outlasts the job was accepted'))
	return v
