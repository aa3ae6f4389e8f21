# SPDX-License-Identifier: GPL-2.0
"""`make lava-local`: jobs through LAVA's own dispatcher on this machine.

lava-run (lava-dispatcher, the optional tools/lava-packages.txt) runs each
job with a device dictionary rendered from lava-server's own qemu.jinja2
(downloaded with `apt-get download lava-server`, never installed: no
server runs here), as the server renders it for a job it schedules; each
job's log is then judged by the lab's judges (lava.logs)."""

import dataclasses
import os
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Tuple

from hiblab import cli, packages, paths
from hiblab.base import pins
from hiblab.errors import LabError
from hiblab.gauntlet import mutants
from hiblab.lab.records import ScenarioRun
from hiblab.lab.scenarios import Scenario
from hiblab.lava import jobs
from hiblab.lava.jobset import JobSet
from hiblab.lava.logs import judge_run
from hiblab.verdict import FAIL, PASS, Verdict

PACKAGES = paths.TOOLS_DIR / 'lava-packages.txt'
# lava-run's own limit is the job timeout; this one only guards against a
# dispatcher that never returns.
RUN_MARGIN = 300


def device(templates: Path, ctx: Dict[str, object]) -> dict:
	"""The device dictionary lava-run needs: lava-server's own qemu.jinja2
	(from its Debian package, in templates/) rendered with the job's
	context, as the server renders it for each job it schedules."""
	try:
		import jinja2
	except ImportError as e:
		raise LabError('python3-jinja2 is missing', 'run `make lava-local`'
			       ' (it installs tools/lava-packages.txt)') from e
	env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)),
				 trim_blocks=True, autoescape=False)
	try:
		text = env.get_template(f'{jobs.DEVICE_TYPE}.jinja2').render(**ctx)
	except jinja2.TemplateError as e:
		raise LabError(f'{templates}/{jobs.DEVICE_TYPE}.jinja2 does not render:'
			       f' {e}', 'remove the directory; the next run '
			       'fetches it again') from e
	return jobs.yaml_module().safe_load(text)


def validate_device(data: dict) -> str:
	try:
		from lava_common.schemas.device import validate as lava_validate
		from voluptuous import Invalid
	except ImportError as e:
		raise LabError('lava_common is missing (LAVA device validation)',
			       'run `make setup` (package lava-common)') from e
	try:
		lava_validate(data)
	except Invalid as e:
		return f'{e.msg} at {"/".join(str(p) for p in e.path)}'
	return ''


def install_dispatcher(session: cli.Session) -> None:
	specs = packages.missing(packages.read_package_list(PACKAGES))
	if specs:
		print('lava: optional packages for lava-run (about 130 with '
		      f'their dependencies): {" ".join(specs)}', flush=True)
	if specs:
		packages.install(specs, session.results('lava-setup') / 'apt.log')


def device_types(cache: Path, log: Path) -> Path:
	"""lava-server's device-type templates, from the lava-server package
	of the installed dispatcher's version (downloaded, not installed: no
	server runs here)."""
	version = pins.dpkg_version('lava-dispatcher')
	if not version:
		raise LabError('lava-dispatcher is not installed',
			       'run make lava-local as root')
	d = cache / 'lava' / f'lava-server-{version}'
	templates = d / 'usr/share/lava-server/device-types'
	if (templates / f'{jobs.DEVICE_TYPE}.jinja2').is_file():
		return templates
	d.mkdir(parents=True, exist_ok=True)
	with log.open('w') as f:
		for cmd in (['apt-get', 'download', f'lava-server={version}'],
			    ['sh', '-c', 'dpkg-deb -x lava-server_*.deb .']):
			f.write('$ ' + ' '.join(cmd) + '\n')
			f.flush()
			if subprocess.run(cmd, cwd=d, stdout=f, stderr=subprocess.STDOUT,
					  check=False).returncode:
				raise LabError(f'`{" ".join(cmd)}` failed (see {log})',
					       'check the Debian mirror, then rerun')
	return templates


def run_local(session: cli.Session, out: Path, base: str,
	      scenarios: List[Scenario], js: JobSet) -> Tuple[List[Verdict], List[ScenarioRun]]:
	"""Each job through lava-run, judged from its log."""
	if os.geteuid() != 0:
		raise LabError('lava-run needs root (it manages tmp dirs under '
			       '/var/lib/lava)', 'run make lava-local as root')
	templates = device_types(session.cache, out / 'lava-server.log')
	verdicts: List[Verdict] = []
	runs = []
	for n, s in enumerate(scenarios, 1):
		job = jobs.yaml_module().safe_load(js.jobs[s.name].read_text())
		d = out / 'runs' / s.name
		d.mkdir(parents=True, exist_ok=True)
		dev = d / 'device.yaml'
		device_dict = device(templates, job['context'])
		dev.write_text(jobs.dump(device_dict))
		why = validate_device(device_dict)
		if why:
			raise LabError(f'{dev}: not a valid device dictionary: {why}')
		log = d / 'lava-run.log'
		cmd = ['lava-run', '--job-id', str(n), '--output-dir',
		       str(d / 'output'), '--device', str(dev),
		       str(js.jobs[s.name])]
		limit = job['timeouts']['job']['minutes'] * 60 + RUN_MARGIN
		print(f'lava: {s.name}: lava-run (log {log})', flush=True)
		start = time.monotonic()
		with log.open('w') as f:
			f.write('$ ' + ' '.join(cmd) + '\n')
			f.flush()
			try:
				rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
						    timeout=limit).returncode
			except subprocess.TimeoutExpired:
				rc = None
		seconds = round(time.monotonic() - start, 1)
		got, record = judge_run(s, log, d / 'cycle', seconds,
					'lava-run timed out' if rc is None else
					f'lava-run exit {rc}')
		print(f'lava: {s.name}: lava-run took {seconds:.0f}s', flush=True)
		verdicts += [dataclasses.replace(v, name=f'{s.name}/{v.name}')
			     for v in got]
		runs.append(ScenarioRun(s, d / 'cycle', record))
	return verdicts, runs


def killed(mutant: mutants.Mutant, got: List[Verdict]) -> Verdict:
	"""The mutant's run is judged by the gauntlet's rule: a check its
	Killed-by: names (lab/<scenario>/<check>) failed under LAVA."""
	failed = [f'lab/{v.name}' for v in got if v.status == FAIL]
	hit = [n for n in failed if n in mutant.killed_by]
	return Verdict(f'mutant/{mutant.name}', PASS if hit else FAIL,
		       f'killed through lava-run by {", ".join(hit)}' if hit
		       else f'survived lava-run (Killed-by: '
		       f'{" ".join(mutant.killed_by)}; failed here: '
		       f'{", ".join(failed) or "nothing"})')
