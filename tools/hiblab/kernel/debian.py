# SPDX-License-Identifier: GPL-2.0
"""Debian's own binary kernel of a base, as a lab guest image.

qemu/debian-kernels.txt pins, per base, the packages that hold the kernel
Debian ships (suite, version, a sha256 per .deb).  They are downloaded with
base.fetch's private apt state under <cache>/debian-kernels/<name>/, checked,
and unpacked there; nothing is installed on the machine.  The image boots
as shipped: its own vmlinuz, config and modules.  Its initramfs is the lab's
agent with the modules the cycle needs that this kernel has as modules (the
disk: virtio_blk), in load order from the modules.dep that depmod writes
for the unpacked tree, decompressed on the host, and their paths in
/hiblab-modules, which the agent loads first.  The package's System.map is
a placeholder: the gdb position check of a shipped restore kernel reads the
vmlinux and System.map of its -dbg package (only those two files are
unpacked from it).
"""

import dataclasses
import lzma
import re
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hiblab import paths
from hiblab.base import fetch
from hiblab.errors import LabError
from hiblab.kernel.guest import GuestImage, write_initramfs

KERNELS_FILE = paths.REPO_ROOT / 'qemu' / 'debian-kernels.txt'
# What a cycle needs that Debian builds as modules: the swap disk.
WANTED_MODULES = ('virtio_pci', 'virtio_blk')
_SECTION = re.compile(r'^\[(debian-[0-9A-Za-z._-]+)\]$')
_SHA256 = re.compile(r'^[0-9a-f]{64}$')
KEYS = ('base', 'suite', 'version', 'release', 'dbg')
# From the -dbg package: the kernel's symbols and code for the position check.
DBG_FILES = ('vmlinux', 'System.map')


@dataclasses.dataclass(frozen=True)
class DebianKernel:
	name: str		# the section: 'debian-6.12'
	base: str		# the base it is Debian's kernel of
	suite: str
	version: str		# the packages' version
	release: str		# uname -r; the banner says 'Linux version <it>'
	dbg: Tuple[str, str]	# the -dbg package: (package, sha256)
	debs: Tuple[Tuple[str, str], ...]	# (package, sha256)

	@property
	def banner(self) -> str:
		return f'Linux version {self.release} '

	def deb_file(self, package: str) -> str:
		"""apt-get download's file name (an epoch's ':' is %3a)."""
		return f'{package}_{self.version.replace(":", "%3a")}_amd64.deb'


def parse_kernels(text: str, where: str = 'debian-kernels.txt'
		  ) -> Dict[str, DebianKernel]:
	"""The sections of qemu/debian-kernels.txt; a bad line is one
	LabError naming it."""
	found: Dict[str, DebianKernel] = {}
	name, debs = '', []
	fields: Dict[str, object] = {}

	def close() -> None:
		if not name:
			return
		missing = [k for k in KEYS if k not in fields]
		if missing or not debs:
			raise LabError(f'{where}: [{name}] lacks ' +
				       ', '.join(missing + ([] if debs else
							    ['deb'])),
				       'see the comment at the top of the file')
		found[name] = DebianKernel(
			name, debs=tuple(debs), **{k: fields[k] for k in KEYS
						  if k != 'dbg'},
			dbg=fields['dbg'])

	for n, raw in enumerate(text.splitlines(), 1):
		line = raw.strip()
		if not line or line.startswith('#'):
			continue
		m = _SECTION.match(line)
		if m:
			close()
			name, fields, debs = m[1], {}, []
			continue
		key, eq, value = (x.strip() for x in line.partition('='))
		if not name or not eq or key not in KEYS + ('deb',):
			raise LabError(f'{where}:{n}: cannot read "{line}"',
				       'expected [debian-<base>], then key = value '
				       f'lines ({", ".join(KEYS)}, deb)')
		if key in ('deb', 'dbg'):
			package, _, sha = value.partition(' ')
			if not _SHA256.match(sha.strip()):
				raise LabError(f'{where}:{n}: {key} {package} has '
					       'no sha256', f'write `{key} = '
					       '<package> <sha256>`')
			if key == 'deb':
				debs.append((package, sha.strip()))
			else:
				fields[key] = (package, sha.strip())
		else:
			fields[key] = value
	close()
	return found


def kernel_of(base: str, path: Path = KERNELS_FILE) -> DebianKernel:
	"""Debian's kernel of a base."""
	for k in parse_kernels(path.read_text(), path.name).values():
		if k.base == base:
			return k
	raise LabError(f'{path.name} pins no Debian kernel of base {base}',
		       f'add a [debian-{base}] section')


def kernel_named(name: str, base: str, path: Path = KERNELS_FILE
		 ) -> DebianKernel:
	"""Build.shipped's kernel: 'debian' is the base's own, 'debian-<b>'
	the one of base b (an upgrade across bases)."""
	if name == 'debian':
		return kernel_of(base, path)
	found = parse_kernels(path.read_text(), path.name)
	if name not in found:
		raise LabError(f'{path.name} has no [{name}]',
			       'choose from ' + ', '.join(found))
	return found[name]


def home(cache: Path, k: DebianKernel) -> Path:
	return cache / 'debian-kernels' / k.name


def fetch_kernel(k: DebianKernel, cache: Path,
		 progress: Callable[[str], None] = print,
		 archive: Optional[fetch.Archive] = None) -> Path:
	"""The pinned packages downloaded, checked and unpacked, and from the
	-dbg package the vmlinux and System.map; returns the unpacked root
	(those two beside it).  A no-op when it was done from the same
	.debs."""
	where = home(cache, k)
	root = where / 'root'
	stamp = root / '.hiblab-debs'
	every = k.debs + (k.dbg,)
	want = ''.join(f'{p} {k.version} {sha}\n' for p, sha in every)
	if stamp.is_file() and stamp.read_text() == want and \
	   all((where / f).is_file() for f in DBG_FILES):
		return root
	# The pins changed, or the last unpacking did not finish: a .deb
	# downloaded before is checked against the pins again, not trusted.
	where.mkdir(parents=True, exist_ok=True)
	fetch.download(where, k.suite, [fetch.Deb(p, k.version, k.deb_file(p))
					for p, _ in every], 'lab', progress,
		       archive or fetch.archive_for(k.suite))
	for package, sha in every:
		fetch.check_deb(where / k.deb_file(package), sha,
				KERNELS_FILE.name)
	staging = where / 'root.unpacking'
	shutil.rmtree(staging, ignore_errors=True)
	progress(f'lab: unpacking {k.name} ({len(k.debs)} package(s), and '
		 f'{" and ".join(DBG_FILES)} from {k.dbg[0]})')
	for package, _ in k.debs:
		proc = subprocess.run(['dpkg-deb', '-x', str(where /
							   k.deb_file(package)),
				       str(staging)], stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, check=False)
		if proc.returncode:
			shutil.rmtree(staging, ignore_errors=True)
			raise LabError(f'cannot unpack {k.deb_file(package)} ('
				       f'{proc.stdout.decode().strip()[-200:]})',
				       'check the disk space under the cache '
				       'directory')
	depmod(staging, k.release)
	dbg = where / k.deb_file(k.dbg[0])
	unpack_dbg(dbg, k.release, where)
	(staging / '.hiblab-debs').write_text(want)
	shutil.rmtree(root, ignore_errors=True)
	staging.rename(root)
	# ~1 GB, and all that is needed of it is unpacked.
	dbg.unlink()
	return root


def unpack_dbg(deb: Path, release: str, out: Path) -> None:
	"""vmlinux and System.map of a -dbg .deb into out/: 6.12's has them
	as usr/lib/debug/boot/<file>-<release>, 7.3's as
	usr/lib/debug/lib/modules/<release>/<file> (boot/ holds a symlink).
	The stream is read only up to them: in 6.12's they come before the
	6 GB of the modules' debug info."""
	names = {}
	for f in DBG_FILES:
		names[f'./usr/lib/debug/boot/{f}-{release}'] = f
		names[f'./usr/lib/debug/lib/modules/{release}/{f}'] = f
	proc = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', str(deb)],
				stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
	assert proc.stdout
	got = set()
	try:
		with tarfile.open(fileobj=proc.stdout, mode='r|') as tar:
			for m in tar:
				if m.name in names and m.isfile():
					src = tar.extractfile(m)
					assert src
					tmp = out / f'{names[m.name]}.tmp'
					with tmp.open('wb') as f:
						shutil.copyfileobj(src, f)
					tmp.replace(out / names[m.name])
					got.add(names[m.name])
				if len(got) == len(DBG_FILES):
					break
	except tarfile.TarError as e:
		raise LabError(f'cannot read {deb.name} ({e})',
			       f'delete {deb} and run again') from e
	finally:
		proc.kill()
		proc.wait()
	if len(got) < len(DBG_FILES):
		raise LabError(f'{deb.name} holds no ' + ' or '.join(
			n for n in names if names[n] not in got),
			'check dbg = and release = in debian-kernels.txt')


def depmod(root: Path, release: str) -> None:
	"""modules.dep, which the package's postinst would write: kmod's
	depmod on the unpacked root (-b), never on the machine's modules."""
	if not (root / 'lib').exists() and (root / 'usr' / 'lib').is_dir():
		(root / 'lib').symlink_to('usr/lib')	# merged /usr
	proc = subprocess.run(['depmod', '-b', str(root), release],
			      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
			      check=False)
	if proc.returncode:
		raise LabError(f'depmod failed on {root} ('
			       f'{proc.stdout.decode().strip()[-200:]})',
			       'check that kmod is installed (make setup)')


def module_dir(root: Path, release: str) -> Path:
	"""lib/modules/<release>, with the modules.dep depmod wrote."""
	d = root / 'lib' / 'modules' / release
	if (d / 'modules.dep').is_file():
		return d
	raise LabError(f'no modules.dep for {release} in {root}',
		       'the pinned packages must include the modules')


def module_name(path: str) -> str:
	"""kernel/drivers/block/virtio_blk.ko.xz -> virtio_blk"""
	return Path(path).name.split('.ko', 1)[0].replace('-', '_')


def load_order(dep_text: str, builtin_text: str,
	       wanted: Sequence[str]) -> List[str]:
	"""The module paths (as modules.dep names them) to load for the
	wanted modules, each after its dependencies; a wanted module that is
	built in needs nothing, one that is neither is a LabError."""
	deps: Dict[str, List[str]] = {}
	by_name: Dict[str, str] = {}
	for line in dep_text.splitlines():
		mod, colon, rest = line.partition(':')
		if colon:
			deps[mod.strip()] = rest.split()
			by_name[module_name(mod)] = mod.strip()
	builtin = {module_name(l) for l in builtin_text.split()}
	order: List[str] = []

	def visit(mod: str) -> None:
		if mod in order:
			return
		# modules.dep lists a module's dependencies so that the
		# last is loaded first (modprobe's order).
		for d in reversed(deps.get(mod, [])):
			visit(d)
		order.append(mod)

	for name in wanted:
		if name in builtin:
			continue
		if name not in by_name:
			raise LabError(f'the kernel has no {name}, neither built in '
				       'nor as a module', 'pin a kernel that can '
				       'boot from a virtio disk')
		visit(by_name[name])
	return order


def vmlinuz(root: Path, release: str) -> Path:
	"""boot/vmlinuz-<release> (6.12), or lib/modules/<release>/vmlinuz
	(7.3's packages, for kernel-install)."""
	for path in (root / 'boot' / f'vmlinuz-{release}',
		     root / 'lib' / 'modules' / release / 'vmlinuz'):
		if path.is_file():
			return path
	raise LabError(f'no vmlinuz of {release} in {root}',
		       'check release = in debian-kernels.txt')


def guest_image(k: DebianKernel, cache: Path, plain: GuestImage,
		progress: Callable[[str], None] = print) -> GuestImage:
	"""Debian's kernel as a guest image: its vmlinuz, and an initramfs
	of the plain build's agent with the modules it needs."""
	root = fetch_kernel(k, cache, progress)
	where = home(cache, k)
	mods = module_dir(root, k.release)
	order = load_order((mods / 'modules.dep').read_text(),
			   (mods / 'modules.builtin').read_text()
			   if (mods / 'modules.builtin').is_file() else '',
			   WANTED_MODULES)
	staged = where / 'initramfs'
	shutil.rmtree(staged, ignore_errors=True)
	staged.mkdir(parents=True)
	lines = [l for l in (plain.build / 'hiblab' / 'initramfs.list'
			     ).read_text().splitlines()]
	lines.append('dir /lib 0755 0 0')
	lines.append('dir /lib/modules 0755 0 0')
	in_guest = []
	for mod in order:
		data = (mods / mod).read_bytes()
		if mod.endswith('.xz'):
			data = lzma.decompress(data)
		elif not mod.endswith('.ko'):
			raise LabError(f'{mod}: a compression the lab does not '
				       'unpack', 'add it to kernel/debian.py')
		name = f'{module_name(mod)}.ko'
		(staged / name).write_bytes(data)
		in_guest.append(f'/lib/modules/{name}')
		lines.append(f'file /lib/modules/{name} {staged / name} 0644 0 0')
	(staged / 'hiblab-modules').write_text(''.join(
		f'{m}\n' for m in in_guest))
	lines.append(f'file /hiblab-modules {staged / "hiblab-modules"} '
		     '0644 0 0')
	cpio_list = staged / 'initramfs.list'
	cpio_list.write_text('\n'.join(lines) + '\n')
	initramfs = where / 'initramfs.cpio'
	write_initramfs(plain.build / 'usr' / 'gen_init_cpio', cpio_list,
			initramfs)
	image = vmlinuz(root, k.release)
	progress(f'lab: {k.name}: {image.name}, modules '
		 f'{", ".join(module_name(m) for m in order) or "none"}; '
		 f'vmlinux and System.map from {k.dbg[0]}')
	return GuestImage(where, image, initramfs, where / 'System.map')
