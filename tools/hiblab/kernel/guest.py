# SPDX-License-Identifier: GPL-2.0
"""The lab's guest: kernel (allnoconfig + qemu/guest.config), agent, initramfs.

The kernel is built from a tree (the topic branch, or a worktree for a
variant) into a build directory named from the tree and the fragment, so
variants never share one and rebuilds are incremental.
"""

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.kernel import ccache, kunit

FRAGMENT = paths.REPO_ROOT / 'qemu' / 'guest.config'
AGENT_SOURCE = paths.REPO_ROOT / 'qemu' / 'agent' / 'hiblab-agent.c'
# The agent's register holders (cpu-state.h), assembled on their own: the
# C file is compiled with nolibc's header forced in.
AGENT_ASM = paths.REPO_ROOT / 'qemu' / 'agent' / 'cpu-state.S'
# Each build's make output, beside its objects.
BUILD_LOG = 'hiblab-build.log'
BASE_FRAGMENT_DIR = paths.REPO_ROOT / 'qemu' / 'bases'


def guest_fragments(base: str) -> Tuple[Path, ...]:
	"""The lab's guest config on a base: qemu/guest.config, then what
	qemu/bases/<base>.config adds there, if anything."""
	extra = BASE_FRAGMENT_DIR / f'{base}.config'
	return (FRAGMENT,) + ((extra,) if extra.is_file() else ())


def check_fragments(base: str) -> Tuple[Path, ...]:
	"""The check kernel: the lab's guest with our KUnit suites (kunit/)
	built in, one kernel per configuration.  make test's KUnit boots
	(kunit_tool exec on its build directory), the static checks, the
	lab's cycles (booted with kunit.enable=0) and the gauntlet's mutants
	all use it, so a mutant costs one build.  qemu/bases/<base>-kunit.config
	adds what a base's KUnit needs there, if anything."""
	extra = BASE_FRAGMENT_DIR / f'{base}-kunit.config'
	return guest_fragments(base) + tuple(kunit.kunitconfigs()) + \
		((extra,) if extra.is_file() else ())


@dataclasses.dataclass(frozen=True)
class GuestRequest:
	tree: Path
	cache: Path
	variant: str		# 'topic', 'base', a mutant name, ...
	jobs: int
	fragments: tuple = (FRAGMENT,)
	nice: int = 0		# make's nice level (0: as the caller's)


@dataclasses.dataclass(frozen=True)
class GuestImage:
	build: Path
	bzimage: Path
	initramfs: Path
	system_map: Path


def read_fragment(fragments: tuple) -> Dict[str, str]:
	"""CONFIG_X -> value ('n' for '# CONFIG_X is not set')."""
	want: Dict[str, str] = {}
	for path in fragments:
		for line in Path(path).read_text().splitlines():
			line = line.strip()
			if line.startswith('CONFIG_') and '=' in line:
				key, value = line.split('=', 1)
				want[key] = value
			elif line.startswith('# CONFIG_') and \
			     line.endswith(' is not set'):
				want[line[2:].split()[0]] = 'n'
	return want


def missing_options(config_text: str, want: Dict[str, str]) -> List[str]:
	have: Dict[str, str] = {}
	for line in config_text.splitlines():
		if line.startswith('CONFIG_') and '=' in line:
			key, value = line.split('=', 1)
			have[key] = value
	return [f'{k}={v}' for k, v in want.items()
		if have.get(k, 'n') != v]


def config_key(tree: Path, fragments: str) -> str:
	"""What a build's .config depends on: the fragments and every Kconfig
	file of the tree as it is (committed and not)."""
	digest = hashlib.sha256(fragments.encode())
	for args in (['ls-files', '-s', '--', '*Kconfig*'],
		     ['diff', 'HEAD', '--', '*Kconfig*']):
		digest.update(subprocess.run(['git', '-C', str(tree)] + args,
					     stdout=subprocess.PIPE,
					     check=False).stdout)
	return digest.hexdigest()


def undefined_symbols(tree: Path, options: List[str]) -> List[str]:
	"""The options (CONFIG_X=v) whose symbol no Kconfig file of the tree
	defines: a fragment may name a test a tree does not have yet (the
	check kernel of a series stack without the patch that adds it)."""
	out = []
	for opt in options:
		name = opt.split('=', 1)[0][len('CONFIG_'):]
		proc = subprocess.run(['git', '-C', str(tree), 'grep', '-q', '-E',
				       rf'^(menu)?config {name}$', '--',
				       '*Kconfig*'], check=False)
		if proc.returncode == 1:
			out.append(opt)
	return out


def build_dir_for(req: GuestRequest) -> Path:
	digest = hashlib.sha256(str(req.tree).encode())
	for f in req.fragments:
		digest.update(Path(f).read_bytes())
	return paths.build_dir(req.cache, f'guest-{req.variant}-'
				   f'{digest.hexdigest()[:10]}')


def copy_build(req: GuestRequest, source: Path, build: Path) -> None:
	"""build becomes a copy of the build directory source, for req's tree,
	ready to be built on incrementally.

	Every object depends on tools/objtool/objtool, which tools/' own make
	builds with commands that name the directory by its absolute path: in
	a plain copy they differ, objtool is linked again, and the whole
	kernel compiles (1093 objects on 7.3).  So objtool is linked for the
	copy now, and everything under tools/ given the time of the original
	objtool, which is older than the objects built with it."""
	shutil.rmtree(build, ignore_errors=True)
	shutil.copytree(source, build, symlinks=True)
	objtool = source / 'tools' / 'objtool' / 'objtool'
	if not objtool.is_file():
		return
	_make(req, build, ['tools/objtool'], build / BUILD_LOG)
	then = objtool.stat().st_mtime_ns
	for p in (build / 'tools').rglob('*'):
		os.utime(p, ns=(then, then), follow_symlinks=False)


def first_error(text: str) -> str:
	"""The line of a build log that says what went wrong first: a
	compiler or linker error, else make's own error line, else the last
	line."""
	lines = [l.strip() for l in text.splitlines() if l.strip()]
	for pattern in (r': (fatal )?error: ', r'(^|\s)(ld|ld\.\S+): ',
			r'^make(\[\d+\])?: \*\*\* '):
		hit = next((l for l in lines if re.search(pattern, l)), '')
		if hit:
			return hit
	return lines[-1] if lines else 'no output'


def _make(req: GuestRequest, build: Path, targets: List[str], log: Path,
	  extra: List[str] = ()) -> None:
	# nice: a base built beside another (make test) compiles in the
	# other's idle time; the command kbuild records is the same.
	nice = ['nice', '-n', str(req.nice)] if req.nice else []
	cmd = nice + ['make', '-C', str(req.tree), f'O={build}',
		      f'-j{req.jobs}'] + ccache.make_args() + list(extra) + targets
	with log.open('a') as f:
		start = f.tell()
		f.write('$ ' + ' '.join(cmd) + '\n')
		f.flush()
		rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
				    env=ccache.env(req.cache,
						   ccache.stats_log(build)),
				    check=False).returncode
	if rc != 0:
		with log.open() as f:
			f.seek(start)
			text = f.read()
		raise LabError(f'guest build failed: {first_error(text)}',
			       f'see {log}')


def missing_in(tree: Path, build: Path, want: Dict[str, str]) -> List[str]:
	"""The wanted options the build's .config lacks, but for those whose
	symbol the tree does not define."""
	missing = missing_options((build / '.config').read_text(), want)
	return [m for m in missing if m not in undefined_symbols(tree, missing)]


def configure(req: GuestRequest) -> Path:
	"""The build directory with its .config for the request's fragments
	(allnoconfig whenever they or the tree's Kconfig files changed),
	every option of the fragments checked; nothing compiled."""
	build = build_dir_for(req)
	build.mkdir(parents=True, exist_ok=True)
	log = build / BUILD_LOG
	log.write_text('')
	want = read_fragment(req.fragments)
	merged = build / 'hiblab-fragment.config'
	# allnoconfig whenever the fragments or the tree's Kconfig files
	# changed: the tree may have moved to a commit with other symbols (a
	# series' stack).  A mutant's change to .c files needs none.
	text = ''.join(Path(f).read_text() for f in req.fragments)
	stamp = build / 'hiblab-config.stamp'
	key = config_key(req.tree, text)

	def allnoconfig() -> List[str]:
		merged.write_text(text)
		_make(req, build, ['allnoconfig'], log,
		      [f'KCONFIG_ALLCONFIG={merged}'])
		stamp.write_text(key)
		return missing_in(req.tree, build, want)

	fresh = not (build / '.config').exists() or not stamp.exists() or \
		stamp.read_text() != key
	missing = allnoconfig() if fresh else \
		missing_in(req.tree, build, want)
	if missing and not fresh:
		# Another make in this directory since the stamp (a series'
		# per-commit build of a commit with other Kconfig symbols)
		# rewrote .config: make it again before calling it broken.
		missing = allnoconfig()
	if missing:
		raise LabError(f'guest .config lacks {", ".join(missing[:4])}',
			       'a dependency is off: fix qemu/guest.config')
	return build


def build_guest(req: GuestRequest,
		progress: Callable[[str], None] = print) -> GuestImage:
	build = configure(req)
	log = build / BUILD_LOG
	progress(f'guest: building {req.variant} kernel ({req.tree} -> {build})')
	ccache.start_stats(build)
	start = time.monotonic()
	_make(req, build, ['bzImage', 'headers'], log)
	progress(f'guest: {req.variant} kernel built in '
		 f'{time.monotonic() - start:.0f}s; '
		 f'{ccache.build_stats(build).line()}')
	agent = build_agent(req.tree, build)
	cpio_list = build / 'hiblab' / 'initramfs.list'
	cpio_list.write_text('dir /dev 0755 0 0\n'
			     'nod /dev/console 0600 0 0 c 5 1\n'
			     'dir /proc 0755 0 0\ndir /sys 0755 0 0\n'
			     'dir /tmp 1777 0 0\n'
			     f'file /init {agent} 0755 0 0\n')
	initramfs = build / 'hiblab' / 'initramfs.cpio'
	gen = build / 'usr' / 'gen_init_cpio'
	if not gen.exists():
		_make(req, build, ['usr/gen_init_cpio'], log)
	write_initramfs(gen, cpio_list, initramfs)
	return GuestImage(build, build / 'arch/x86/boot/bzImage', initramfs,
			  build / 'System.map')


def _cc(argv: List[str], what: str) -> None:
	proc = subprocess.run(argv, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT, check=False)
	if proc.returncode != 0:
		out = proc.stdout.decode().strip().splitlines() or ['no output']
		first = next((l for l in out if ' error: ' in l or 'Error:' in l),
			     out[0])
		raise LabError(f'{what} does not build: ' + first,
			       f'see `{" ".join(argv)}`')


def build_agent(tree: Path, build: Path) -> Path:
	"""The static nolibc agent (/init), against the tree's nolibc and
	the build's exported headers."""
	agent = build / 'hiblab' / 'init'
	agent.parent.mkdir(exist_ok=True)
	asm = build / 'hiblab' / 'cpu-state.o'
	_cc(['gcc', '-c', '-o', str(asm), str(AGENT_ASM)], 'the guest agent')
	_cc(['gcc', '-Os', '-static', '-nostdlib', '-fno-stack-protector',
	     '-fno-asynchronous-unwind-tables', '-Wall', '-Wextra', '-Werror',
	     '-Wno-unused-parameter',
	     '-include', str(tree / 'tools/include/nolibc/nolibc.h'),
	     '-I', str(tree / 'tools/include/nolibc'),
	     '-I', str(build / 'usr/include'),
	     '-o', str(agent), str(AGENT_SOURCE), str(asm), '-lgcc'],
	    'the guest agent')
	return agent


def write_initramfs(gen: Path, cpio_list: Path, out: Path) -> None:
	"""The kernel's gen_init_cpio writes `out` from `cpio_list`.  Its
	failure (a file the list names is missing, a broken gen_init_cpio) used
	to escape as a CalledProcessError traceback; now it is one line."""
	with out.open('wb') as f:
		try:
			proc = subprocess.run([str(gen), str(cpio_list)], stdout=f,
					      stderr=subprocess.PIPE, check=False)
		except OSError as e:
			raise LabError(f'cannot run {gen} ({e.strerror})',
				       f'remove {gen} so that the next run '
				       'rebuilds it') from e
	if proc.returncode != 0:
		why = proc.stderr.decode(errors='replace').strip().splitlines() \
			or [f'exit {proc.returncode}']
		raise LabError(f'gen_init_cpio failed on {cpio_list} ({why[-1]})',
			       'check that every file it names exists (the agent '
			       f'is built first); remove {gen} if it is stale')


def require_tools() -> None:
	for tool, pkg in (('qemu-system-x86_64', 'qemu-system-x86'),
			  ('gdb', 'gdb')):
		if shutil.which(tool) is None:
			raise LabError(f'{tool} is not installed',
				       f'run `make setup` (package {pkg})')
