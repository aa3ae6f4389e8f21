# SPDX-License-Identifier: GPL-2.0
"""Host set-up: install the Debian packages the project needs."""

import os
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from hiblab import paths
from hiblab.base.pins import BasePin, dpkg_version
from hiblab.errors import LabError

PACKAGE_LIST = paths.TOOLS_DIR / 'host-packages.txt'


def read_package_list(path: Path = PACKAGE_LIST) -> List[str]:
	names = []
	for line in path.read_text().splitlines():
		line = line.split('#', 1)[0].strip()
		if line:
			names.append(line)
	return names


def wanted(pins: Sequence[BasePin], names: Sequence[str]) -> List[str]:
	"""apt-get install arguments; kernel sources are version-pinned (only
	those of bases installed through the machine's apt sources)."""
	return list(names) + [f'{p.package}={p.package_version}' for p in pins]


def missing(specs: Sequence[str],
	    installed: Callable[[str], Optional[str]] = dpkg_version
	    ) -> List[str]:
	out = []
	for spec in specs:
		name, _, version = spec.partition('=')
		have = installed(name)
		if have is None or (version and have != version):
			out.append(spec)
	return out


def apt_command(specs: Sequence[str]) -> List[str]:
	return ['apt-get', 'install', '-y', '-q', '--no-install-recommends'] + \
		list(specs)


def install(specs: Sequence[str], log: Path,
	    progress: Callable[[str], None] = print) -> None:
	if not specs:
		progress('setup: every package is installed')
		return
	if os.geteuid() != 0:
		raise LabError(f'missing packages: {" ".join(specs)}',
			       'run: sudo apt-get update && sudo ' +
			       ' '.join(apt_command(specs)))
	progress(f'setup: installing {" ".join(specs)} (log: {log})')
	log.parent.mkdir(parents=True, exist_ok=True)
	env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
	with log.open('w') as f:
		# A new machine has no package lists yet.
		for cmd in (['apt-get', 'update', '-q'], apt_command(specs)):
			f.write(f'$ {" ".join(cmd)}\n')
			f.flush()
			rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
					    env=env, check=False).returncode
			if rc != 0:
				tail = log.read_text().strip().splitlines()[-1:]
				raise LabError(f'`{" ".join(cmd)}` failed '
					       f'({"; ".join(tail)})',
					       f'see {log}; a pinned version that '
					       'left the archive means a new pin')
	progress('setup: done')
