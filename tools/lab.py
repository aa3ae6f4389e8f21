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

import lab_base
import lab_checks
import lab_cli
import lab_fetch
import lab_lock
import lab_overlay
import lab_paths
import lab_setup
import lab_tree


def tree_request(args: argparse.Namespace) -> lab_tree.TreeRequest:
	return lab_tree.TreeRequest(repo=lab_paths.REPO_ROOT,
				    cache=lab_paths.cache_dir(),
				    force=getattr(args, 'force', False),
				    base=args.base)


def setup_handler(args: argparse.Namespace) -> int:
	"""Installs the host packages and every base installed through apt,
	fetches the bases pinned to another suite (only --base's, if given)."""
	path = lab_paths.base_pin_file()
	pins = [lab_base.read_pin(path, args.base)] if args.base else \
		list(lab_base.read_bases(path).values())
	specs = lab_setup.wanted([p for p in pins if not p.suite],
				 lab_setup.read_package_list())
	lab_setup.install(lab_setup.missing(specs),
			  lab_paths.cache_dir() / 'logs' / 'apt.log')
	for pin in pins:
		if pin.suite:
			with lab_lock.CacheLock(lab_paths.cache_dir()):
				tarball = lab_fetch.fetch(pin, lab_paths.cache_dir())
			print(f'setup: base {pin.name}: {tarball}')
	return 0


def tree_handler(args: argparse.Namespace) -> int:
	tree = lab_tree.build_topic(tree_request(args))
	print(f'tree: {tree.path} on branch {lab_overlay.TOPIC} '
	      f'(base {tree.pin.name}, {tree.pin.tag})')
	return 0


def export_handler(args: argparse.Namespace) -> int:
	tree = lab_tree.open_base(tree_request(args))
	overlay = tree.overlay(lab_paths.REPO_ROOT)
	n = lab_overlay.export_topic(tree.git, tree.base, overlay)
	print(f'export: {n} step(s) in {overlay}')
	return 0


def status_handler(args: argparse.Namespace) -> int:
	tree = lab_tree.open_base(tree_request(args))
	topic = tree.git.rev(lab_overlay.TOPIC)
	print(f'tree:   {tree.path}')
	print(f'base:   {tree.pin.tag} = {tree.base[:12]} '
	      f'({tree.pin.package} {tree.pin.package_version})')
	print(f'topic:  {topic[:12] if topic else "(not built)"}')
	reason = lab_overlay.unexported(tree.git, tree.base)
	print(f"state:  {reason or f'in sync with {tree.overlay(lab_paths.REPO_ROOT)}'}")
	return 0


def test_handler(args: argparse.Namespace) -> int:
	return lab_checks.run_all(lab_checks.TestRequest(
		repo=lab_paths.REPO_ROOT, cache=lab_paths.cache_dir(),
		only=args.only, jobs=args.jobs, bases=args.base,
		skip={} if args.all else lab_checks.CI_SKIP))


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
	return lab_cli.run(f'lab {args.command}', lambda s: run(s, args))


# The commands that change the cache's tree or worktrees: one at a time.
LOCKED = ('tree', 'export', 'test')


def check_test_args(args: argparse.Namespace) -> None:
	"""`test`'s --only and --base names, checked before the cache lock:
	a typo is bad usage even while another run holds the cache.
	lab_checks.run_all checks them again for its other callers."""
	known = list(lab_checks.HOST_CHECKS) + list(lab_checks.BASE_CHECKS)
	unknown = [n for n in args.only if n not in known]
	if unknown:
		raise lab_cli.UsageError(f'unknown check(s) {", ".join(unknown)}',
					 f'choose from {", ".join(known)}')
	for base in args.base:
		lab_cli.pick_base(base)


def run(session: lab_cli.Session, args: argparse.Namespace) -> int:
	"""One subcommand, under the cache lock if it writes to the cache."""
	if args.command == 'test':
		check_test_args(args)
	elif args.base is not None:
		lab_cli.pick_base(args.base)
	if args.command in LOCKED:
		session.lock()
	if args.command == 'tree':
		session.leave(lab_cli.tree_note(session.cache))
	return args.handler(args)


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
