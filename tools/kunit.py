#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""./tools/kunit.py [--base NAME] run --arch=x86_64 [kunit_tool options]

Runs hibernate-lab's KUnit suites (kunit/*.kunitconfig) on the topic branch
with the tree's own tools/testing/kunit/kunit.py.  The topic branch is built
from branch-overlay/ first, unless the tree holds unexported work, which is
then tested as it is.  --base picks a base of linux-base.txt (default: its
first section); every option after the subcommand is kunit_tool's.
"""

import os
import subprocess
import sys

import lab_kunit
import lab_lock
import lab_paths
import lab_tree
import lab_verdict
from lab_errors import LabError


def main(argv: list) -> int:
	base = None
	if argv and (argv[0] == '--base' or argv[0].startswith('--base=')):
		if argv[0] == '--base':
			base, argv = (argv[1] if len(argv) > 1 else ''), argv[2:]
		else:
			base, argv = argv[0].split('=', 1)[1], argv[1:]
		if not base:
			print('error: --base needs a name (a section of '
			      'linux-base.txt)', file=sys.stderr)
			return 2
	if not argv or argv[0] in ('-h', '--help') or \
	   argv[0] not in lab_kunit.SUBCOMMANDS:
		print(__doc__.strip())
		return 0 if argv and argv[0] in ('-h', '--help') else 2
	cache = lab_paths.cache_dir()
	try:
		with lab_lock.CacheLock(cache):
			return run(argv, cache, base)
	except LabError as e:
		print(f'error: {e}', file=sys.stderr)
		return 1


def run(argv: list, cache, base) -> int:
	tree = lab_tree.ensure_topic(lab_tree.TreeRequest(
		lab_paths.REPO_ROOT, cache, base=base))
	results = lab_paths.run_dir('kunit')
	cmd = lab_kunit.kunit_command(tree.path, cache, tree.pin.name, results,
				      argv, os.cpu_count() or 1)
	cmd.prepare()
	print(f'kunit: {" ".join(cmd.argv[1:])}', flush=True)
	rc = subprocess.run([sys.executable] + cmd.argv, cwd=tree.path,
			    check=False).returncode
	if argv[0] not in ('run', 'exec', 'parse') or \
	   lab_kunit.has_option(argv, '--raw_output'):
		return rc
	suites, why = lab_kunit.read_suites(cmd.json_path)
	verdicts = [s.verdict('kunit') for s in suites]
	for v in verdicts:
		lab_verdict.report(v, sys.stdout)
	if why:
		print(f'FAIL kunit: {why}')
		return rc or 1
	failed = any(v.status == lab_verdict.FAIL for v in verdicts)
	return rc or int(failed)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
