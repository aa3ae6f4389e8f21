#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/report_check.py [RUN_DIR]: a lab report as a browser shows it.

Renders RUN_DIR/report.html (default: the newest results/lab-*/ that has
one) in headless Chromium, then checks the DOM text (the title and every
check of the run's verdicts.json) and the screenshot (its size, the status
band in the run's colour, a red-backed row on a failed run).  Installs the
optional package set tools/report-packages.txt first, saying so.
"""

import argparse
import re
import sys
from pathlib import Path
from typing import Optional

from hiblab import cli, packages, paths, verdict
from hiblab.lab import browser
from hiblab.verdict import FAIL


def newest_report(repo: Path) -> Optional[Path]:
	runs = sorted(paths.results_dir(repo).glob('lab-*/report.html'))
	return runs[-1].parent if runs else None


def run(session: cli.Session, args: argparse.Namespace) -> int:
	run_dir = Path(args.run) if args.run else newest_report(session.repo)
	if run_dir is None or not (run_dir / 'report.html').is_file():
		raise cli.UsageError(f'no report.html in '
					 f'{run_dir or "results/lab-*"}',
					 'run `make qemu-hibernate` first, or name '
					 'a lab run directory')
	try:
		verdicts = verdict.read_json(run_dir / 'verdicts.json')
	except (OSError, ValueError) as e:
		raise cli.UsageError(f'{run_dir}: no readable verdicts.json '
					 f'({e})', 'name a lab run directory') from e
	specs = packages.missing(packages.read_package_list(
		browser.PACKAGES))
	if specs:
		print(f'report-check: optional packages for the browser: '
		      f'{" ".join(specs)}', flush=True)
	packages.install(specs, run_dir / 'report-check' / 'apt.log')
	report = run_dir / 'report.html'
	title = re.search(r'<title>(.*?)</title>', report.read_text()).group(1)
	print(f'report-check: rendering {report}', flush=True)
	r = browser.render(report, run_dir / 'report-check')
	failed = any(v.status == FAIL for v in verdicts)
	got = [browser.judge_dom(r.dom, title, [v.name.split('/', 1)[-1]
						    for v in verdicts]),
	       browser.judge_screenshot(r.png, failed)]
	cli.report(got)
	print(f'report-check: screenshot {run_dir / "report-check/report.png"}')
	print(cli.verdict_line('report-check', got))
	return cli.exit_code(got)


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	parser.add_argument('run', nargs='?', help='a results/lab-*/ directory')
	args = parser.parse_args(argv)
	return cli.run('report-check', lambda s: run(s, args))


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
