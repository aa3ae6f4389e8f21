# SPDX-License-Identifier: GPL-2.0
"""Our KUnit suites through the tree's own kunit_tool.

The wrapper only adds what kunit_tool cannot know: which tree (the topic
branch in the cache), which .kunitconfig (kunit/), where to build (a build
directory outside the repository, named from the configuration so variants
never share one) and where to put the JSON; every other option is passed
through unchanged.
"""

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.kernel import ccache
from hiblab.verdict import FAIL, PASS, SKIP, Verdict

KUNITCONFIG_DIR = paths.REPO_ROOT / 'kunit'
SUBCOMMANDS = ('run', 'config', 'build', 'exec', 'parse')


@dataclasses.dataclass(frozen=True)
class Boot:
	"""One boot of our suites' kernel: the prefix of its verdicts
	(<prefix>/<suite>), the kunit_tool options that make it, and the cases
	(<suite>.<case>) that may skip there (None: any)."""
	prefix: str
	options: Tuple[str, ...]
	may_skip: Optional[FrozenSet[str]]


# One kernel, booted three ways; a boot costs about a second.  kunit_tool's
# CPU (qemu64) has no LA57, TCG's "max" has; pti= decides page table
# isolation, which no CPU under TCG asks for.  Cases that need 5-level
# paging or PTI skip where it is off and must run where it is on: with PTI,
# set_p4d() (4-level) and set_pgd() (5-level) are the two paths that copy
# top-level entries.  5-level paging runs with PTI only: every top-level
# entry the suites set has _PAGE_NOPTISHADOW, so PTI changes none of the
# tables they check; it only gives the user-copy check something to see.
PLAIN = Boot('kunit', ('--kernel_args=nopti',), None)
BOOTS = (
	PLAIN,
	Boot('kunit-la57', ('--qemu_args=-cpu max', '--kernel_args=pti=on'),
	     frozenset()),
	Boot('kunit-pti', ('--kernel_args=pti=on',),
	     frozenset({'x86_ident_map.ident_map_five_level'})),
)


def exec_args(build_dir: Path, boot: Boot) -> List[str]:
	"""kunit_tool exec of a kernel built elsewhere (the check kernel,
	kernel.guest.check_fragments), booted the boot's way."""
	return ['exec', '--arch=x86_64', f'--build_dir={build_dir}'] + \
		list(boot.options)


def kunitconfigs(directory: Path = KUNITCONFIG_DIR) -> List[Path]:
	return sorted(directory.glob('*.kunitconfig'))


def has_option(args: Sequence[str], name: str) -> bool:
	return any(a == name or a.startswith(name + '=') for a in args)


def option_values(args: Sequence[str], name: str) -> List[str]:
	"""Values of `name=V` and `name V` in a kunit_tool command line."""
	values = []
	for i, a in enumerate(args):
		if a.startswith(name + '='):
			values.append(a.split('=', 1)[1])
		elif a == name and i + 1 < len(args):
			values.append(args[i + 1])
	return values


def build_variant(configs: Sequence[Path], args: Sequence[str]) -> str:
	"""A build directory name that changes when the configuration does:
	the kunitconfigs in use (the user's, if given) and the options that
	change the kernel."""
	digest = hashlib.sha256()
	user = [Path(v) for v in option_values(args, '--kunitconfig')]
	for c in user or configs:
		path = c / '.kunitconfig' if c.is_dir() else c
		digest.update(path.read_bytes() if path.is_file() else
			      str(path).encode())
	for name in ('--arch', '--kconfig_add', '--alltests', '--cross_compile'):
		for v in option_values(args, name) or \
			 ([''] if name in args else []):
			digest.update(f'{name}={v}'.encode())
	return 'kunit-' + digest.hexdigest()[:10]


def default_build_dir(cache: Path, base: str, args: Sequence[str],
		      prefix: str = "") -> Path:
	"""Where our kunitconfigs build for `args` on a base; `prefix`
	separates trees (the check worktree builds in its own directory)."""
	return paths.build_dir(cache, f'{prefix}{base}-' +
				   build_variant(kunitconfigs(), args))


@dataclasses.dataclass(frozen=True)
class KunitCommand:
	argv: List[str]
	json_path: Path
	build_dir: Path

	def prepare(self) -> None:
		"""kunit_tool creates its build directory with os.mkdir(): the
		parent must exist (it does not in a new cache directory)."""
		self.build_dir.parent.mkdir(parents=True, exist_ok=True)


def kunit_command(tree: Path, cache: Path, base: str, results: Path,
		  args: List[str], jobs: int) -> KunitCommand:
	"""The kunit_tool command line for `args` (subcommand first)."""
	if not args or args[0] not in SUBCOMMANDS:
		raise LabError(f'not a kunit_tool subcommand: '
			       f'{args[0] if args else "(none)"}',
			       f'start with one of {", ".join(SUBCOMMANDS)}')
	sub, rest = args[0], list(args[1:])
	extra: List[str] = []
	configs = kunitconfigs()
	if sub in ('run', 'config', 'build') and \
	   not has_option(rest, '--kunitconfig'):
		extra += [f'--kunitconfig={c}' for c in configs]
	given = option_values(rest, '--build_dir')
	build = Path(given[0]) if given else \
		paths.build_dir(cache, f'{base}-' + build_variant(configs, rest))
	if not given:
		extra.append(f'--build_dir={build}')
	if sub in ('run', 'build') and not has_option(rest, '--jobs'):
		extra.append(f'--jobs={jobs}')
	if sub in ('run', 'config', 'build') and ccache.make_args() and \
	   not any(v.startswith('CC=') for v in
		   option_values(rest, '--make_options')):
		extra += [f'--make_options={a}' for a in ccache.make_args()]
	json_path = results / 'kunit.json'
	if sub in ('run', 'exec', 'parse') and not has_option(rest, '--json') \
	   and not has_option(rest, '--raw_output'):
		extra.append(f'--json={json_path}')
	tool = tree / 'tools' / 'testing' / 'kunit' / 'kunit.py'
	return KunitCommand([str(tool), sub] + extra + rest, json_path,
			    build.resolve())


@dataclasses.dataclass(frozen=True)
class SuiteResult:
	name: str
	passed: int
	failed: int		# FAIL and ERROR (crashed) cases
	skipped: int
	skipped_cases: Tuple[str, ...] = ()

	def verdict(self, prefix: str,
		    may_skip: Optional[FrozenSet[str]] = None) -> Verdict:
		detail = (f'{self.passed} passed, {self.failed} failed, '
			  f'{self.skipped} skipped')
		if self.failed:
			return Verdict(f'{prefix}/{self.name}', FAIL, detail)
		must_run = sorted(c for c in self.skipped_cases
				  if f'{self.name}.{c}' not in may_skip) \
			if may_skip is not None else []
		if must_run:
			return Verdict(f'{prefix}/{self.name}', FAIL, detail +
				       f' ({", ".join(must_run)} must run in this '
				       'boot)')
		return Verdict(f'{prefix}/{self.name}',
			       PASS if self.passed else SKIP, detail)


def _count(group: Dict) -> Dict[str, int]:
	counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'ERROR': 0}
	for case in group.get('test_cases', []):
		counts[case['status']] = counts.get(case['status'], 0) + 1
	for sub in group.get('sub_groups', []):
		for k, v in _count(sub).items():
			counts[k] = counts.get(k, 0) + v
	return counts


def _skipped(group: Dict) -> List[str]:
	"""Names of the group's skipped cases, its sub-groups' too."""
	names = [c['name'] for c in group.get('test_cases', [])
		 if c['status'] == 'SKIP']
	for sub in group.get('sub_groups', []):
		names += _skipped(sub)
	return names


def parse_suites(json_text: str,
		 source: str = 'kunit_tool --json output') -> List[SuiteResult]:
	"""The suites of a kunit_tool --json file (KernelCI format).  A file
	kunit_tool did not finish (killed mid-write, disk full) used to escape
	as a JSONDecodeError traceback and end make test; it is a LabError."""
	try:
		data = json.loads(json_text)
		if not isinstance(data, dict):
			raise TypeError(f'top level is a {type(data).__name__}')
		suites = []
		for group in data.get('sub_groups', []):
			c = _count(group)
			suites.append(SuiteResult(group['name'], c['PASS'],
						  c['FAIL'] + c['ERROR'], c['SKIP'],
						  tuple(_skipped(group))))
		return suites
	except (ValueError, KeyError, TypeError, AttributeError) as e:
		raise LabError(f'{source} is not kunit_tool JSON '
			       f'({type(e).__name__}: {e})', 'run the suites again; '
			       'kunit_tool was probably stopped while writing it'
			       ) from e


def read_suites(json_path: Path) -> Tuple[List[SuiteResult], str]:
	"""The suites of a run, or an empty list and why there are none."""
	if not json_path.is_file():
		return [], f'no results ({json_path} not written)'
	try:
		suites = parse_suites(json_path.read_bytes().decode(
			errors='replace'), str(json_path))
	except LabError as e:
		return [], str(e)
	if not suites:
		return [], 'no suite ran (kernel crashed or suites not built?)'
	return suites, ''


@dataclasses.dataclass(frozen=True)
class KunitRun:
	"""One kunit_tool invocation and where its output goes."""
	tree: Path
	cache: Path
	base: str		# the tree's base (names the default build dir)
	results: Path		# gets kunit.json
	log: Path
	args: List[str]		# subcommand first
	jobs: int
	# 'tcg': kunit_tool's QEMU with TCG only (TCG_ONLY); 'kvm': its own
	# order, KVM first.  A nested /dev/kvm opens but does not run guests.
	accel: str = 'tcg'


# kunit_tool's qemu-system-x86_64 when KunitRun.accel is 'tcg'.
TCG_ONLY = Path(__file__).parent / 'tcg-only'


def accel_env(env: Dict[str, str], accel: str) -> Dict[str, str]:
	"""kunit_tool's environment for the accelerator: for 'tcg', TCG_ONLY
	first in PATH, the real QEMU named for it."""
	real = shutil.which('qemu-system-x86_64', path=env.get('PATH'))
	if accel != 'tcg' or not real:
		return env
	return dict(env, PATH=f'{TCG_ONLY}{os.pathsep}{env.get("PATH", "")}',
		    HIBLAB_REAL_QEMU=real)


def run_kunit(run: KunitRun, prefix: str = 'kunit',
	      may_skip: Optional[FrozenSet[str]] = None
	      ) -> Tuple[int, List[Verdict]]:
	"""Runs kunit_tool; returns its exit code and one verdict per suite.

	A run that produced no suites yields a single FAIL verdict named
	`prefix`, with the reason and the last line of the log.
	"""
	run.results.mkdir(parents=True, exist_ok=True)
	cmd = kunit_command(run.tree, run.cache, run.base, run.results, run.args,
			    run.jobs)
	cmd.prepare()
	env = accel_env(dict(ccache.env(run.cache),
			     PYTHONDONTWRITEBYTECODE='1'), run.accel)
	with run.log.open('w') as f:
		f.write(f'accel: {run.accel}' + (
			f' (QEMU through {TCG_ONLY}: kunit_tool\'s -accel kvm '
			'and hvf dropped)' if 'HIBLAB_REAL_QEMU' in env else '') +
			'\n')
		f.write(f'$ {" ".join(cmd.argv)}\n')
		f.flush()
		rc = subprocess.run([sys.executable] + cmd.argv, cwd=run.tree,
				    stdout=f, stderr=subprocess.STDOUT, env=env,
				    check=False).returncode
	if run.args[0] not in ('run', 'exec', 'parse'):
		return rc, []
	return rc, kunit_verdicts(rc, cmd.json_path, prefix, may_skip,
				  run.log)


def kunit_verdicts(rc: int, json_path: Path, prefix: str = 'kunit',
		   may_skip: Optional[FrozenSet[str]] = None,
		   log: Optional[Path] = None
		   ) -> List[Verdict]:
	"""One verdict per suite of kunit_tool's JSON; a run that produced no
	suites is a single FAIL named `prefix` with the reason (and the last
	line of the log, if kunit_tool wrote to one), and a non-zero exit
	with no failing suite is a FAIL too.  The one reading of a KUnit run,
	for make test, the gauntlet and ./tools/kunit.py."""
	suites, why = read_suites(json_path)
	verdicts = [s.verdict(prefix, may_skip) for s in suites]
	where = f' (see {log})' if log else ''
	if why:
		tail = (log.read_text().strip().splitlines()[-1:] if log else []) \
			or ['']
		return [Verdict(prefix, FAIL, f'{why}; exit {rc}; {tail[0]}'
				f'{where}')]
	if rc != 0 and all(v.status != FAIL for v in verdicts):
		verdicts.append(Verdict(prefix, FAIL, f'kunit_tool exit {rc}'
					f'{where}'))
	return verdicts
