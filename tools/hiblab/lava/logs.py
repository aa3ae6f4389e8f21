# SPDX-License-Identifier: GPL-2.0
"""A LAVA job's log, back into the lab's records, judged by the lab's judges.

lava-run writes one YAML flow mapping per line; the server's log
(`lavacli jobs logs --raw`) is the same lines as a list.  The boots' serial
lines become boot records written like a local cycle's (record.json, each
boot's console and agent logs), so lab.records and lab.judge read them as
they read a local run.  What LAVA cannot check is said (not_run)."""

import dataclasses
import json
from pathlib import Path
from typing import List, Tuple

from hiblab.lab import judge, protocol, records
from hiblab.lab.records import BootRecord, CycleRecord
from hiblab.lab.scenarios import Scenario
from hiblab.lava.jobs import POWER_OFF, yaml_module
from hiblab.verdict import FAIL, PASS, SKIP, Verdict

# lava-run writes one YAML flow mapping per line ({"dt":..., "lvl":...,
# "msg":...}); the server's log is the same lines as a list ('- {...}').
_BOOT_COMMAND = 'Boot command: '
# The serial line: 'feedback' is what the connection read outside a test
# action (after a failed step, say), so it belongs to the boot too.
SERIAL = ('target', 'feedback')


@dataclasses.dataclass(frozen=True)
class LogLine:
	level: str
	msg: object


def read_log(text: str) -> List[LogLine]:
	out = []
	for raw in text.splitlines():
		raw = raw[2:] if raw.startswith('- ') else raw
		if not raw.startswith('{'):
			continue
		try:
			d = json.loads(raw)
		except ValueError:
			d = yaml_module().safe_load(raw)
		if isinstance(d, dict) and 'lvl' in d:
			out.append(LogLine(d['lvl'], d.get('msg', '')))
	return out


def results(log: List[LogLine]) -> List[dict]:
	"""LAVA's own results: one per interactive step and script."""
	return [l.msg for l in log if l.level == 'results' and
		isinstance(l.msg, dict)]


def split_boots(log: List[LogLine]) -> List[Tuple[List[str], List[str]]]:
	"""(QEMU argv, serial lines) of each boot, in order."""
	out: List[Tuple[List[str], List[str]]] = []
	for l in log:
		if l.level == 'info' and isinstance(l.msg, str) and \
		   l.msg.startswith(_BOOT_COMMAND):
			out.append((l.msg[len(_BOOT_COMMAND):].split(), []))
		elif l.level in SERIAL and out and isinstance(l.msg, str):
			out[-1][1].append(l.msg)
	return out


def cycle_record(s: Scenario, log: List[LogLine], dest: Path,
		 seconds: float) -> CycleRecord:
	"""The job's boots as the lab records them, written to dest like a
	local cycle's (record.json, per-boot console and agent logs) so that
	records.load and lab.judge read them the same way.

	LAVA does not report QEMU's exit status: a boot whose console shows
	the power-off is recorded as exit 0, any other as killed (None).
	"""
	dest.mkdir(parents=True, exist_ok=True)
	record = CycleRecord(s.name, 'lava', [], seconds=seconds)
	for n, (argv, lines) in enumerate(split_boots(log)):
		kernel = 'restore' if n else 'image'
		name = f'boot{n + 1}-{kernel}' + \
			(f'-{n}' if n and s.cycles > 1 else '')
		agent = [l for l in lines if protocol.parse_line(l)]
		ready_names = records.RESTORE_READY if n else \
			records.IMAGE_READY
		ready = next((l for l in agent if
			      protocol.parse_line(l).name in ready_names),
			     None)
		off = any(POWER_OFF in l for l in lines)
		boot = BootRecord(name, kernel, n, argv, ready, 0 if off else None,
				  {}, results=dest)
		boot.console_file.write_text(''.join(l + '\n' for l in lines))
		boot.agent_file.write_text(''.join(l + '\n' for l in agent))
		record.boots.append(boot)
	damaged = [l for b in record.boots for l in
		   b.agent_file.read_text().splitlines()
		   if protocol.parse_line(l).name == 'damaged']
	# What the agent damaged (hiblab.damage), as swap.corrupt() says
	# what the host damaged in a local run.
	record.corruption = damaged[0].strip() if damaged else None
	# LAVA's verdict on the job itself: a Test error is one of our
	# interactive failures (the judges read the same lines); any other
	# kind (Infrastructure, Bug, Configuration, Job) stopped the job.
	job = [r for r in results(log) if r.get('case') == 'job' and
	       r.get('definition') == 'lava' and r.get('result') == 'fail']
	if job and job[-1].get('error_type') != 'Test':
		record.error = f'LAVA stopped the job ({job[-1].get("error_type")}' \
			f' error): {job[-1].get("error_msg")}'
	elif not record.boots:
		record.error = 'the LAVA job booted nothing'
	record.save(dest)
	return records.load(dest)


def not_run(s: Scenario) -> List[Verdict]:
	"""What a LAVA run cannot check, said rather than faked."""
	if not s.hlt_proof or s.refusal or s.save_fails:
		return []
	return [Verdict('hlt-parking', SKIP, 'not run in LAVA: the vCPU '
			'positions come from QEMU\'s gdbstub, which only the '
			'local lab has (make qemu-hibernate)')]


def judge_run(s: Scenario, log: Path, dest: Path, seconds: float,
	      exit: str) -> Tuple[List[Verdict], records.CycleRecord]:
	"""A job's log judged as the local lab judges a cycle, after LAVA's
	own view (exit: how lava-run ended, '' when it ran elsewhere; its
	interactive results)."""
	lines = read_log(log.read_text(errors='replace'))
	record = cycle_record(s, lines, dest, seconds)
	lava_results = results(lines)
	failed = [f'{r.get("definition")}/{r.get("case")}' for r in lava_results
		  if r.get('result') == 'fail']
	ok = not failed and bool(lava_results) and exit in ('', 'lava-run exit 0')
	lava = Verdict('lava-job', PASS if ok else FAIL,
		       (f'{exit}, ' if exit else '') + f'{len(lava_results)} results' +
		       (f', failed: {", ".join(failed)}' if failed else '') +
		       (f', {seconds:.0f}s' if seconds else '') +
		       ' (LAVA logs no QEMU exit status: a boot that printed '
		       'its power-off counts as exit 0)')
	return [lava] + judge.judge_cycle(s, record) + \
		not_run(s), record
