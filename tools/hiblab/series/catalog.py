# SPDX-License-Identifier: GPL-2.0
"""The series of a base: named, ordered subsets of its stack of steps.

The topic branch stays one linear stack (branch-overlay/<base>/NNNN-*/), so
the lab and KUnit test everything together; what goes to the list is cut
from it by series files, one per series, beside the steps:

  branch-overlay/<base>/<name>.series

    Prefix: PATCH            PATCH or RFC PATCH
    Version: 1               the revision the mails carry (v1, v2, ...)
    Target: tip x86/mm       the tree the maintainers take it into
    Steps: 0001 0002         the stack's steps it sends, in stack order
    Requires: ident-map      series of this base it applies on top of, in
                             the order they apply (none: the pristine base)
    Hold: <why>              optional: its mails must not be sent yet (the
                             6.12 series, backport rehearsals of 7.3's)
    Checkpatch: TYPE in 1, 3: why
                             optional, repeatable: a checkpatch --strict
                             warning or check type that stays in those
                             patches (numbered as the series sends them),
                             and why; in this file, not in the mails

    <cover letter: subject line, blank line, body>

Every step is in exactly one series.  MAINTAINERS-notes holds each
series' recipients in a block of its own (mails.recipients_begin).
"""

import dataclasses
import re
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from hiblab import paths
from hiblab.errors import LabError

SUFFIX = '.series'
PREFIXES = ('PATCH', 'RFC PATCH')
FIELDS = ('Prefix', 'Version', 'Target', 'Steps', 'Requires', 'Hold',
	  'Checkpatch')
REQUIRED = ('Prefix', 'Version', 'Target', 'Steps')
_NAME = re.compile(r'^[a-z0-9][a-z0-9-]*$')


@dataclasses.dataclass(frozen=True)
class SeriesDef:
	name: str
	path: Path
	prefix: str		# 'PATCH' or 'RFC PATCH'
	version: int
	target: str		# e.g. 'tip x86/mm', 'linux-pm'
	steps: Tuple[int, ...]	# step numbers of the stack, in stack order
	requires: Tuple[str, ...] = ()
	hold: str = ''		# why its mails must not be sent yet ('': none)
	cover: str = ''		# subject line, blank line, body
	# 'TYPE in 1, 3: why' per checkpatch finding type that stays.
	checkpatch: Tuple[str, ...] = ()

	def justifications(self) -> str:
		"""checkpatch.justified_findings' input: one indented line per
		Checkpatch: field."""
		return ''.join(f'   {c}\n' for c in self.checkpatch)

	@property
	def subject(self) -> str:
		return self.cover.split('\n', 1)[0]

	def line(self) -> str:
		"""One line a reader scans: name, prefix and version, target,
		steps, prerequisites."""
		steps = ' '.join(f'{n:04d}' for n in self.steps)
		return (f'{self.name}: [{self.prefix} v{self.version}] to '
			f'{self.target}; steps {steps}; requires '
			f'{", ".join(self.requires) or "nothing"}' +
			(f'; held: {self.hold}' if self.hold else ''))


def parse_series(path: Path, text: str) -> SeriesDef:
	"""One series file; a LabError naming the file and the field."""
	head, sep, cover = text.partition('\n\n')
	if not sep or not cover.strip():
		raise LabError(f'{path}: no cover letter', 'write the header '
			       'lines, a blank line, then the cover letter')
	fields: Dict[str, str] = {}
	checkpatch: List[str] = []
	for line in head.splitlines():
		key, colon, value = line.partition(':')
		if not colon or key not in FIELDS:
			raise LabError(f'{path}: unknown header line {line!r}',
				       f'use {", ".join(FIELDS)}')
		if key == 'Checkpatch':
			checkpatch.append(value.strip())
		elif key in fields:
			raise LabError(f'{path}: {key}: twice', 'give it once')
		else:
			fields[key] = value.strip()
	missing = [k for k in REQUIRED if not fields.get(k)]
	if missing:
		raise LabError(f'{path}: no {", ".join(missing)}',
			       'every series names its prefix, version, target '
			       'and steps')
	if fields['Prefix'] not in PREFIXES:
		raise LabError(f'{path}: Prefix {fields["Prefix"]!r}',
			       f'use one of {", ".join(PREFIXES)}')
	if not re.fullmatch(r'[1-9]\d*', fields['Version']):
		raise LabError(f'{path}: Version {fields["Version"]!r}',
			       'a revision number: 1, 2, ...')
	steps = fields['Steps'].split()
	if not all(re.fullmatch(r'\d{4}', s) for s in steps):
		raise LabError(f'{path}: Steps {fields["Steps"]!r}',
			       'step numbers as in branch-overlay: 0001 0002 ...')
	name = path.name[:-len(SUFFIX)]
	if not _NAME.match(name):
		raise LabError(f'{path}: {name!r} is not a series name',
			       'lower case letters, digits and dashes')
	return SeriesDef(name, path, fields['Prefix'], int(fields['Version']),
			 fields['Target'], tuple(int(s) for s in steps),
			 tuple(fields.get('Requires', '').replace(',', ' ').split()),
			 fields.get('Hold', ''), cover.strip() + '\n',
			 tuple(checkpatch))


def check_catalog(series: Sequence[SeriesDef], steps: int) -> None:
	"""The series of a stack of `steps` steps: every step in exactly one
	series, in stack order; prerequisites that exist, without a cycle."""
	seen: Dict[int, str] = {}
	names = {s.name for s in series}
	for s in series:
		if list(s.steps) != sorted(s.steps):
			raise LabError(f'{s.path}: Steps are not in stack order',
				       'list them as the stack has them')
		for n in s.steps:
			if not 1 <= n <= steps:
				raise LabError(f'{s.path}: no step {n:04d} in a stack '
					       f'of {steps}', 'see branch-overlay/')
			if n in seen:
				raise LabError(f'step {n:04d} is in both {seen[n]} and '
					       f'{s.name}', 'a step goes to one series')
			seen[n] = s.name
		for r in s.requires:
			if r not in names:
				raise LabError(f'{s.path}: requires {r}, which is not '
					       'a series of this base',
					       f'choose from {", ".join(sorted(names))}')
	lost = [f'{n:04d}' for n in range(1, steps + 1) if n not in seen]
	if lost:
		raise LabError(f'step(s) {", ".join(lost)} in no series',
			       'add each to the series that sends it')
	for s in series:
		prerequisites(s, series)


def prerequisites(s: SeriesDef, series: Sequence[SeriesDef]
		  ) -> List[SeriesDef]:
	"""What s applies on, in the order it applies: each prerequisite's
	own prerequisites first, every series once."""
	by_name = {x.name: x for x in series}
	out: List[SeriesDef] = []

	def visit(name: str, chain: Tuple[str, ...]) -> None:
		if name in chain:
			raise LabError(f'series {" -> ".join(chain + (name,))} '
				       'require each other',
				       'break the cycle in their Requires:')
		for r in by_name[name].requires:
			visit(r, chain + (name,))
			if by_name[r] not in out:
				out.append(by_name[r])

	visit(s.name, ())
	return out


def read_catalog(repo: Path, base: str, steps: int) -> List[SeriesDef]:
	"""The base's series, in the order of their first step."""
	where = paths.overlay_dir(repo, base)
	found = [parse_series(p, p.read_text())
		 for p in sorted(where.glob(f'*{SUFFIX}'))]
	if not found:
		raise LabError(f'no series in {where}',
			       f'write at least one {where}/<name>{SUFFIX}')
	check_catalog(found, steps)
	return sorted(found, key=lambda s: s.steps[0])


def pick(series: Sequence[SeriesDef], name: str) -> SeriesDef:
	for s in series:
		if s.name == name:
			return s
	raise LabError(f'no series {name!r} on this base',
		       f'choose from {", ".join(s.name for s in series)}')
