#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/lava.py jobs|local|judge: the lab's scenarios as LAVA jobs.

jobs   builds the guests, writes one job per scenario (default: every
       scenario of the base) under results/lava-jobs-<time>/ with the
       artifacts it names (file:// URLs, or --artifact-url for a real lab),
       and validates each with lava-common's strict schema, as lava-server
       does on submission; a copy with a broken timeout must be refused.
local  the same, then runs jobs (default: smoke and corrupt-header) through
       LAVA's own dispatcher (lava-run, no server), installing the optional
       tools/lava-packages.txt first, and judges each job's log with the
       local lab's judges: the same verdict lines as make qemu-hibernate.
       --mutant NAME runs them on a kernel with that mutant applied.
judge  one scenario's job log from a real lab (`lavacli jobs logs --raw`),
       judged the same way.
"""

import argparse
import dataclasses
import lzma
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import lab_base
import lab_cli
import lab_judge
import lab_lab
import lab_lava
import lab_mutants
import lab_overlay
import lab_paths
import lab_record
import lab_report
import lab_scenarios
import lab_setup
import lab_verdict
from lab_errors import LabError
from lab_git import prepare_worktree
from lab_record import ScenarioRun
from lab_scenarios import Scenario
from lab_verdict import FAIL, PASS, Verdict

PACKAGES = Path(__file__).resolve().parent / 'lava-packages.txt'
LOCAL_DEFAULT = ('smoke', 'corrupt-header')
# lava-run's own limit is the job timeout; this one only guards against a
# dispatcher that never returns.
RUN_MARGIN = 300


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('command', choices=('jobs', 'local', 'judge'))
	parser.add_argument('--log', metavar='FILE', help='judge: the job\'s '
			    'log (lavacli jobs logs --raw ID)')
	parser.add_argument('scenarios', nargs='*', help='scenario names '
			    f'(of {", ".join(lab_scenarios.SCENARIOS)})')
	parser.add_argument('--base', help='a base of linux-base.txt (default: '
			    'its first section)')
	parser.add_argument('--artifact-url', metavar='URL',
			    help='jobs: where a LAVA lab will find the '
			    'artifacts directory (default: file:// paths here)')
	parser.add_argument('--accel', choices=('tcg', 'kvm'), default='tcg',
			    help='-accel of the jobs (default: tcg; kvm for a '
			    'worker with nested-free KVM)')
	parser.add_argument('--mutant', metavar='NAME',
			    help='local: run the jobs on a kernel with this '
			    'mutant of mutants/<base>/ applied; the run passes '
			    'if a check its Killed-by: names fails')
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	args = parser.parse_args(argv)
	return lab_cli.run(f'lava-{args.command}', lambda s: run(s, args))


def pick(args: argparse.Namespace, base: str) -> List[Scenario]:
	ours = [s.name for s in lab_scenarios.for_base(base)]
	names = args.scenarios or (list(LOCAL_DEFAULT) if args.command ==
				   'local' else ours)
	bad = [n for n in names if n not in ours]
	if bad:
		raise lab_cli.UsageError(f'no scenario {", ".join(bad)} on base '
					 f'{base}', f'choose from {", ".join(ours)}')
	return [lab_scenarios.SCENARIOS[n] for n in names]


def zero_disk_xz(path: Path, mib: int) -> None:
	"""mib MiB of zeros, xz-compressed (a few hundred kB)."""
	if path.exists():
		return
	block = bytes(1 << 20)
	tmp = path.with_suffix('.part')
	with lzma.open(tmp, 'wb', preset=0) as f:
		for _ in range(mib):
			f.write(block)
	tmp.rename(path)


@dataclasses.dataclass
class JobSet:
	out: Path
	jobs: Dict[str, Path]		# scenario -> job file


def kernel_tree(session: lab_cli.Session, base: str,
		mutant: Optional[lab_mutants.Mutant]) -> Tuple[Path, str]:
	"""(tree, build variant): the topic branch, or the gauntlet's check
	worktree with the mutant applied (sharing the gauntlet's builds)."""
	tree = session.topic(base)
	if mutant is None:
		return tree.path, 'topic'
	session.leave(lab_cli.scratch_note(session.cache))
	wt = prepare_worktree(tree.git, lab_paths.check_worktree(
		session.cache, base), tree.git.rev(lab_overlay.TOPIC))
	lab_mutants.apply(wt, mutant)
	return wt.worktree, lab_paths.CHECK_VARIANT


def write_jobs(session: lab_cli.Session, args: argparse.Namespace,
	       base: str, scenarios: List[Scenario], out: Path,
	       mutant: Optional[lab_mutants.Mutant] = None) -> JobSet:
	path, variant = kernel_tree(session, base, mutant)
	images = lab_lab.Images(lab_lab.LabRequest(
		path, variant, base, session.cache, out, scenarios, 'tcg',
		args.jobs), lambda s: print(s, flush=True))
	art = out / 'artifacts'
	art.mkdir(parents=True, exist_ok=True)
	url = (args.artifact_url.rstrip('/') if args.artifact_url else
	       f'file://{art.resolve()}')

	jobs = {}
	for s in scenarios:
		for build in (s.build, s.restore):
			image = images.get(build)
			d = art / build.name
			d.mkdir(exist_ok=True)
			shutil.copyfile(image.bzimage, d / 'bzImage')
			shutil.copyfile(image.initramfs, d / 'initramfs.cpio')
		zero_disk_xz(art / lab_lava.swap_name(s), s.swap_mb)
		data = lab_lava.job(s, base, args.accel,
				    lab_lava.artifacts(s, url))
		path = out / 'jobs' / f'{s.name}.yaml'
		path.parent.mkdir(exist_ok=True)
		path.write_text(lab_lava.dump(data))
		jobs[s.name] = path
	return JobSet(out, jobs)



def run(session: lab_cli.Session, args: argparse.Namespace) -> int:
	base = lab_cli.pick_base(args.base)
	if args.command == 'judge':
		return judge(session, args, base)
	scenarios = pick(args, base)
	mutant = pick_mutant(args, base)
	if args.command == 'local':
		install_dispatcher(session)
	# Before any results directory: a run that waits for the cache
	# leaves nothing behind.
	session.lock()
	out = session.results(f'lava-{args.command}')
	print(f'lava: base {base}, {len(scenarios)} job(s) in {out}' +
	      (f', mutant {mutant.name}' if mutant else ''), flush=True)
	js = write_jobs(session, args, base, scenarios, out, mutant)
	verdicts = [dataclasses.replace(v, name=f'lava/{v.name}') for v in
		    lab_lava.check_files(list(js.jobs.values()))]
	lab_cli.report(verdicts)
	if args.command == 'local' and all(v.status == PASS for v in verdicts):
		got, runs = run_local(session, out, base, scenarios, js)
		lab_cli.report(got)
		verdicts += got
		report = lab_report.write(out, f'LAVA run {out.name} (base {base},'
					  ' lava-run, tcg)', got, runs)
		print(f'lava: report {report}')
		if mutant:
			verdicts = [killed(mutant, got)]
			lab_cli.report(verdicts)
	lab_verdict.write_json(out / 'verdicts.json', verdicts)
	print(lab_cli.verdict_line(f'lava-{args.command}', verdicts))
	return lab_cli.exit_code(verdicts)


def pick_mutant(args: argparse.Namespace,
		base: str) -> Optional[lab_mutants.Mutant]:
	if not args.mutant:
		return None
	if args.command != 'local':
		raise lab_cli.UsageError('--mutant is for `lava.py local`',
					 'drop it, or run local')
	where = lab_paths.mutant_dir(lab_paths.REPO_ROOT, base)
	path = where / f'{args.mutant}.patch'
	if not path.is_file():
		raise lab_cli.UsageError(f'no mutant {args.mutant} for base '
					 f'{base}', f'see {where}/*.patch')
	return lab_mutants.parse_mutant(path)


def killed(mutant: lab_mutants.Mutant, got: List[Verdict]) -> Verdict:
	"""The mutant's run is judged by the gauntlet's rule: a check its
	Killed-by: names (lab/<scenario>/<check>) failed under LAVA."""
	failed = [f'lab/{v.name}' for v in got if v.status == FAIL]
	hit = [n for n in failed if n in mutant.killed_by]
	return Verdict(f'mutant/{mutant.name}', PASS if hit else FAIL,
		       f'killed through lava-run by {", ".join(hit)}' if hit
		       else f'survived lava-run (Killed-by: '
		       f'{" ".join(mutant.killed_by)}; failed here: '
		       f'{", ".join(failed) or "nothing"})')


def install_dispatcher(session: lab_cli.Session) -> None:
	specs = lab_setup.missing(lab_setup.read_package_list(PACKAGES))
	if specs:
		print('lava: optional packages for lava-run (about 130 with '
		      f'their dependencies): {" ".join(specs)}', flush=True)
	if specs:
		lab_setup.install(specs, session.results('lava-setup') / 'apt.log')


def device_types(cache: Path, log: Path) -> Path:
	"""lava-server's device-type templates, from the lava-server package
	of the installed dispatcher's version (downloaded, not installed: no
	server runs here)."""
	version = lab_base.dpkg_version('lava-dispatcher')
	if not version:
		raise LabError('lava-dispatcher is not installed',
			       'run make lava-local as root')
	d = cache / 'lava' / f'lava-server-{version}'
	templates = d / 'usr/share/lava-server/device-types'
	if (templates / f'{lab_lava.DEVICE_TYPE}.jinja2').is_file():
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


def run_local(session: lab_cli.Session, out: Path, base: str,
	      scenarios: List[Scenario], js: JobSet) -> Tuple[List[Verdict], List[ScenarioRun]]:
	"""Each job through lava-run, judged from its log."""
	if os.geteuid() != 0:
		raise LabError('lava-run needs root (it manages tmp dirs under '
			       '/var/lib/lava)', 'run make lava-local as root')
	templates = device_types(session.cache, out / 'lava-server.log')
	verdicts: List[Verdict] = []
	runs = []
	for n, s in enumerate(scenarios, 1):
		job = lab_lava._yaml().safe_load(js.jobs[s.name].read_text())
		d = out / 'runs' / s.name
		d.mkdir(parents=True, exist_ok=True)
		dev = d / 'device.yaml'
		device = lab_lava.device(templates, job['context'])
		dev.write_text(lab_lava.dump(device))
		why = lab_lava.validate_device(device)
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


def judge_run(s: Scenario, log: Path, dest: Path, seconds: float,
	      exit: str) -> Tuple[List[Verdict], lab_record.CycleRecord]:
	"""A job's log judged as the local lab judges a cycle, after LAVA's
	own view (exit: how lava-run ended, '' when it ran elsewhere; its
	interactive results)."""
	lines = lab_lava.read_log(log.read_text(errors='replace'))
	record = lab_lava.cycle_record(s, lines, dest, seconds)
	results = lab_lava.results(lines)
	failed = [f'{r.get("definition")}/{r.get("case")}' for r in results
		  if r.get('result') == 'fail']
	ok = not failed and bool(results) and exit in ('', 'lava-run exit 0')
	lava = Verdict('lava-job', PASS if ok else FAIL,
		       (f'{exit}, ' if exit else '') + f'{len(results)} results' +
		       (f', failed: {", ".join(failed)}' if failed else '') +
		       (f', {seconds:.0f}s' if seconds else '') +
		       ' (LAVA logs no QEMU exit status: a boot that printed '
		       'its power-off counts as exit 0)')
	return [lava] + lab_judge.judge_cycle(s, record) + \
		lab_lava.not_run(s), record


def judge(session: lab_cli.Session, args: argparse.Namespace,
	  base: str) -> int:
	"""A job's log from a real lab (lavacli jobs logs --raw ID > FILE),
	judged by the lab's judges."""
	if len(args.scenarios) != 1 or not args.log:
		raise lab_cli.UsageError('judge takes one scenario and --log FILE',
					 'e.g. ./tools/lava.py judge smoke --log '
					 'smoke-1234.yaml')
	s = pick(args, base)[0]
	try:
		log = Path(args.log)
		log.read_bytes()
	except OSError as e:
		raise lab_cli.UsageError(f'cannot read {args.log}: {e.strerror}',
					 'name the file `lavacli jobs logs --raw` '
					 'wrote') from e
	out = session.results('lava-judge')
	got, record = judge_run(s, log, out / s.name, 0.0, '')
	got = [dataclasses.replace(v, name=f'{s.name}/{v.name}') for v in got]
	lab_cli.report(got, out)
	lab_report.write(out, f'LAVA job log {log.name} (base {base})', got,
			 [ScenarioRun(s, out / s.name, record)])
	print(lab_cli.verdict_line('lava-judge', got))
	return lab_cli.exit_code(got)

if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
