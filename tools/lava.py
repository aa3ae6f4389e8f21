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
import os
import sys
from pathlib import Path
from typing import List, Optional

from hiblab import cli, paths, verdict
from hiblab.gauntlet import mutants
from hiblab.lab import report, scenarios
from hiblab.lab.records import ScenarioRun
from hiblab.lab.scenarios import Scenario
from hiblab.lava import jobs
from hiblab.lava.jobset import JobsRequest, write_jobs
from hiblab.lava.local import install_dispatcher, killed, run_local
from hiblab.lava.logs import judge_run
from hiblab.verdict import PASS

LOCAL_DEFAULT = ('smoke', 'corrupt-header')


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('command', choices=('jobs', 'local', 'judge'))
	parser.add_argument('--log', metavar='FILE', help='judge: the job\'s '
			    'log (lavacli jobs logs --raw ID)')
	parser.add_argument('scenarios', nargs='*', help='scenario names '
			    f'(of {", ".join(scenarios.SCENARIOS)})')
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
	return cli.run(f'lava-{args.command}', lambda s: run(s, args))


def pick(args: argparse.Namespace, base: str) -> List[Scenario]:
	ours = [s.name for s in jobs.for_base(base)]
	names = args.scenarios or (list(LOCAL_DEFAULT) if args.command ==
				   'local' else ours)
	bad = [n for n in names if n not in ours]
	if bad:
		raise cli.UsageError(f'no LAVA job for {", ".join(bad)} on base '
					 f'{base}', f'choose from {", ".join(ours)} (a '
					 'known reset runs with make qemu-hibernate)')
	return [scenarios.SCENARIOS[n] for n in names]











def run(session: cli.Session, args: argparse.Namespace) -> int:
	base = cli.pick_base(args.base)
	if args.command == 'judge':
		return judge_handler(session, args, base)
	picked = pick(args, base)
	mutant = pick_mutant(args, base)
	if args.command == 'local':
		install_dispatcher(session)
	# Before any results directory: a run that waits for the cache
	# leaves nothing behind.
	session.lock()
	out = session.results(f'lava-{args.command}')
	print(f'lava: base {base}, {len(picked)} job(s) in {out}' +
	      (f', mutant {mutant.name}' if mutant else ''), flush=True)
	js = write_jobs(session, JobsRequest(
		base, picked, out, args.accel, args.artifact_url or '',
		args.jobs, mutant))
	verdicts = [dataclasses.replace(v, name=f'lava/{v.name}') for v in
		    jobs.check_files(list(js.jobs.values()))]
	cli.report(verdicts)
	if args.command == 'local' and all(v.status == PASS for v in verdicts):
		got, runs = run_local(session, out, base, picked, js)
		cli.report(got)
		verdicts += got
		page = report.write(out, f'LAVA run {out.name} (base {base},'
				    ' lava-run, tcg)', got, runs)
		print(f'lava: report {page}')
		if mutant:
			verdicts = [killed(mutant, got)]
			cli.report(verdicts)
	verdict.write_json(out / 'verdicts.json', verdicts)
	print(cli.verdict_line(f'lava-{args.command}', verdicts))
	return cli.exit_code(verdicts)


def pick_mutant(args: argparse.Namespace,
		base: str) -> Optional[mutants.Mutant]:
	if not args.mutant:
		return None
	if args.command != 'local':
		raise cli.UsageError('--mutant is for `lava.py local`',
					 'drop it, or run local')
	where = paths.mutant_dir(paths.REPO_ROOT, base)
	path = where / f'{args.mutant}.patch'
	if not path.is_file():
		raise cli.UsageError(f'no mutant {args.mutant} for base '
					 f'{base}', f'see {where}/*.patch')
	return mutants.parse_mutant(path)












def judge_handler(session: cli.Session, args: argparse.Namespace,
		  base: str) -> int:
	"""A job's log from a real lab (lavacli jobs logs --raw ID > FILE),
	judged by the lab's judges."""
	if len(args.scenarios) != 1 or not args.log:
		raise cli.UsageError('judge takes one scenario and --log FILE',
					 'e.g. ./tools/lava.py judge smoke --log '
					 'smoke-1234.yaml')
	s = pick(args, base)[0]
	try:
		log = Path(args.log)
		log.read_bytes()
	except OSError as e:
		raise cli.UsageError(f'cannot read {args.log}: {e.strerror}',
					 'name the file `lavacli jobs logs --raw` '
					 'wrote') from e
	out = session.results('lava-judge')
	got, record = judge_run(s, log, out / s.name, 0.0, '')
	got = [dataclasses.replace(v, name=f'{s.name}/{v.name}') for v in got]
	cli.report(got, out)
	report.write(out, f'LAVA job log {log.name} (base {base})', got,
			 [ScenarioRun(s, out / s.name, record)])
	print(cli.verdict_line('lava-judge', got))
	return cli.exit_code(got)

if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
