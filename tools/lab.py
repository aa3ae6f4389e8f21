#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""hibernate-lab: the pinned base, the topic branch and the project's checks.

  lab.py setup    install the Debian packages the project needs, fetch bases
  lab.py tree     import the pinned base and build the topic branch
  lab.py export   write the topic branch's commits back to branch-overlay/
  lab.py status   where the tree stands against the overlay
  lab.py test     run every check, one verdict line each

--base NAME picks a base of linux-base.txt (default: its first section);
`test` runs every base unless given one or more.
"""

import argparse
import os
import sys

from hiblab import checks, cli, lock, packages, paths
from hiblab.base import fetch, kernel_tree, overlay, pins


def tree_request(args: argparse.Namespace) -> kernel_tree.TreeRequest:
	return kernel_tree.TreeRequest(repo=paths.REPO_ROOT,
				    cache=paths.cache_dir(),
				    force=getattr(args, 'force', False),
				    base=args.base)


def setup_handler(args: argparse.Namespace) -> int:
	"""Installs the host packages and every base installed through apt,
	fetches the bases pinned to another suite (only --base's, if given)."""
	path = paths.base_pin_file()
	pinned = [pins.read_pin(path, args.base)] if args.base else \
		list(pins.read_bases(path).values())
	specs = packages.wanted([p for p in pinned if not p.suite],
				 packages.read_package_list())
	packages.install(packages.missing(specs),
			  paths.cache_dir() / 'logs' / 'apt.log')
	for pin in pinned:
		if pin.suite:
			with lock.CacheLock(paths.cache_dir()):
				tarball = fetch.fetch(pin, paths.cache_dir())
			print(f'setup: base {pin.name}: {tarball}')
	return 0


def tree_handler(args: argparse.Namespace) -> int:
	tree = kernel_tree.build_topic(tree_request(args))
	print(f'tree: {tree.path} on branch {overlay.TOPIC} '
	      f'(base {tree.pin.name}, {tree.pin.tag})')
	return 0


def export_handler(args: argparse.Namespace) -> int:
	tree = kernel_tree.open_base(tree_request(args))
	overlay_dir = tree.overlay(paths.REPO_ROOT)
	n = overlay.export_topic(tree.git, tree.base, overlay_dir)
	print(f'export: {n} step(s) in {overlay_dir}')
	return 0


def status_handler(args: argparse.Namespace) -> int:
	tree = kernel_tree.open_base(tree_request(args))
	topic = tree.git.rev(overlay.TOPIC)
	print(f'tree:   {tree.path}')
	print(f'base:   {tree.pin.tag} = {tree.base[:12]} '
	      f'({tree.pin.package} {tree.pin.package_version})')
	print(f'topic:  {topic[:12] if topic else "(not built)"}')
	reason = overlay.unexported(tree.git, tree.base)
	print(f"state:  {reason or f'in sync with {tree.overlay(paths.REPO_ROOT)}'}")
	return 0


def test_handler(args: argparse.Namespace) -> int:
	return checks.run_all(checks.TestRequest(
		repo=paths.REPO_ROOT, cache=paths.cache_dir(),
		only=args.only, jobs=args.jobs, bases=args.base,
		skip={} if args.all else checks.CI_SKIP,
		side_by_side=not args.all))


def main(argv: list) -> int:
	parser = argparse.ArgumentParser(
		description='hibernate-lab: x86-64 hibernation resume workspace')
	sub = parser.add_subparsers(dest='command', required=True)
	base = argparse.ArgumentParser(add_help=False)
	base.add_argument('--base',
			  help='a base of linux-base.txt (default: the first)')
	sub.add_parser('setup', parents=[base], help='install missing Debian '
		       'packages, fetch bases').set_defaults(handler=setup_handler)
	p = sub.add_parser('tree', parents=[base], help='import the base, '
			   'build the topic branch from branch-overlay/<base>/')
	p.add_argument('--force', action='store_true',
		       default=bool(os.environ.get('FORCE')),
		       help='rebuild even over uncommitted or unexported work')
	p.set_defaults(handler=tree_handler)
	sub.add_parser('export', parents=[base], help='write the topic branch '
		       'back to branch-overlay/<base>/'
		       ).set_defaults(handler=export_handler)
	sub.add_parser('status', parents=[base], help='show the tree against '
		       'the overlay').set_defaults(handler=status_handler)
	p = sub.add_parser('test', help='run every check')
	p.add_argument('--base', action='append', default=[],
		       help='run the per-base checks on this base only '
		       '(repeatable; default: every base)')
	p.add_argument('--all', action='store_true',
		       help='also the checks make test leaves out for CI time '
		       '(make test-all)')
	p.add_argument('--only', action='append', default=[],
		       help='run only the named check (repeatable)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	p.set_defaults(handler=test_handler)
	args = parser.parse_args(argv)
	return cli.run(f'lab {args.command}', lambda s: run(s, args))


# The commands that change the cache's tree or worktrees: one at a time.
LOCKED = ('tree', 'export', 'test')


def check_test_args(args: argparse.Namespace) -> None:
	"""`test`'s --only and --base names, checked before the cache lock:
	a typo is bad usage even while another run holds the cache.
	checks.run_all checks them again for its other callers."""
	known = list(checks.HOST_CHECKS) + list(checks.BASE_CHECKS)
	unknown = [n for n in args.only if n not in known]
	if unknown:
		raise cli.UsageError(f'unknown check(s) {", ".join(unknown)}',
					 f'choose from {", ".join(known)}')
	for base in args.base:
		cli.pick_base(base)


def run(session: cli.Session, args: argparse.Namespace) -> int:
	"""One subcommand, under the cache lock if it writes to the cache."""
	if args.command == 'test':
		check_test_args(args)
	elif args.base is not None:
		cli.pick_base(args.base)
	if args.command in LOCKED:
		session.lock()
	if args.command == 'tree':
		session.leave(cli.tree_note(session.cache))
	return args.handler(args)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
