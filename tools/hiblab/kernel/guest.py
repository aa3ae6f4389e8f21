# SPDX-License-Identifier: GPL-2.0
"""The lab's guest: kernel (allnoconfig + qemu/guest.config), agent, initramfs.

The kernel is built from a tree (the topic branch, or a worktree for a
variant) into a build directory named from the tree and the fragment, so
variants never share one and rebuilds are incremental.
"""

import dataclasses
import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Dict, List

from hiblab import paths
from hiblab.errors import LabError

FRAGMENT = paths.REPO_ROOT / 'qemu' / 'guest.config'
AGENT_SOURCE = paths.REPO_ROOT / 'qemu' / 'agent' / 'hiblab-agent.c'


@dataclasses.dataclass(frozen=True)
class GuestRequest:
	tree: Path
	cache: Path
	variant: str		# 'topic', 'base', a mutant name, ...
	jobs: int
	fragments: tuple = (FRAGMENT,)


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


def build_dir_for(req: GuestRequest) -> Path:
	digest = hashlib.sha256(str(req.tree).encode())
	for f in req.fragments:
		digest.update(Path(f).read_bytes())
	return paths.build_dir(req.cache, f'guest-{req.variant}-'
				   f'{digest.hexdigest()[:10]}')


def _make(req: GuestRequest, build: Path, targets: List[str], log: Path,
	  extra: List[str] = ()) -> None:
	cmd = ['make', '-C', str(req.tree), f'O={build}', f'-j{req.jobs}'] + \
		list(extra) + targets
	with log.open('a') as f:
		f.write('$ ' + ' '.join(cmd) + '\n')
		f.flush()
		rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
				    check=False).returncode
	if rc != 0:
		tail = log.read_text().strip().splitlines()[-3:]
		raise LabError(f'guest build failed ({" | ".join(tail)})',
			       f'see {log}')


def build_guest(req: GuestRequest,
		progress: Callable[[str], None] = print) -> GuestImage:
	build = build_dir_for(req)
	build.mkdir(parents=True, exist_ok=True)
	log = build / 'hiblab-build.log'
	log.write_text('')
	want = read_fragment(req.fragments)
	merged = build / 'hiblab-fragment.config'
	text = ''.join(Path(f).read_text() for f in req.fragments)
	if not (build / '.config').exists() or \
	   not merged.exists() or merged.read_text() != text:
		merged.write_text(text)
		_make(req, build, ['allnoconfig'], log,
		      [f'KCONFIG_ALLCONFIG={merged}'])
	missing = missing_options((build / '.config').read_text(), want)
	if missing:
		raise LabError(f'guest .config lacks {", ".join(missing[:4])}',
			       'a dependency is off: fix qemu/guest.config')
	progress(f'guest: building {req.variant} kernel ({req.tree} -> {build})')
	_make(req, build, ['bzImage', 'headers'], log)
	agent = build / 'hiblab' / 'init'
	agent.parent.mkdir(exist_ok=True)
	cc = ['gcc', '-Os', '-static', '-nostdlib', '-fno-stack-protector',
	      '-fno-asynchronous-unwind-tables', '-Wall', '-Wextra', '-Werror',
	      '-Wno-unused-parameter',
	      '-include', str(req.tree / 'tools/include/nolibc/nolibc.h'),
	      '-I', str(req.tree / 'tools/include/nolibc'),
	      '-I', str(build / 'usr/include'),
	      '-o', str(agent), str(AGENT_SOURCE), '-lgcc']
	proc = subprocess.run(cc, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT, check=False)
	if proc.returncode != 0:
		out = proc.stdout.decode().strip().splitlines() or ['no output']
		first = next((l for l in out if ' error: ' in l), out[0])
		raise LabError('guest agent does not build: ' + first,
			       f'see `{" ".join(cc)}`')
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
