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
from typing import List, Optional, Tuple

from hiblab import cli
from hiblab.kernel import ccache, kunit


def main(argv: list) -> int:
	return cli.run('kunit', lambda s: run(s, argv))


def split_base(argv: List[str]) -> Tuple[Optional[str], List[str]]:
	"""--base NAME or --base=NAME, only before the subcommand: every
	option after it is kunit_tool's."""
	if not argv or not (argv[0] == '--base' or argv[0].startswith('--base=')):
		return None, argv
	if argv[0] == '--base':
		base, argv = (argv[1] if len(argv) > 1 else ''), argv[2:]
	else:
		base, argv = argv[0].split('=', 1)[1], argv[1:]
	if not base:
		raise cli.UsageError('--base needs a name (a section of '
					 'linux-base.txt)')
	return base, argv


def run(session: cli.Session, argv: List[str]) -> int:
	"""kunit_tool on the topic branch with our kunitconfigs; then one
	verdict line per suite."""
	base, argv = split_base(argv)
	if not argv or argv[0] in ('-h', '--help') or \
	   argv[0] not in kunit.SUBCOMMANDS:
		print(__doc__.strip())
		return cli.PASSED if argv and argv[0] in ('-h', '--help') \
			else cli.USAGE
	tree = session.topic(cli.pick_base(base))
	results = session.results('kunit')
	cmd = kunit.kunit_command(tree.path, session.cache, tree.pin.name,
				      results, argv, os.cpu_count() or 1)
	cmd.prepare()
	print(f'kunit: {" ".join(cmd.argv[1:])}', flush=True)
	rc = subprocess.run([sys.executable] + cmd.argv, cwd=tree.path,
			    env=ccache.env(session.cache), check=False).returncode
	if argv[0] not in ('run', 'exec', 'parse') or \
	   kunit.has_option(argv, '--raw_output'):
		return rc
	verdicts = kunit.kunit_verdicts(rc, cmd.json_path)
	cli.report(verdicts)
	return rc or cli.exit_code(verdicts)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
