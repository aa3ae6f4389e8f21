# SPDX-License-Identifier: GPL-2.0
"""Verdicts: every check yields (name, PASS/FAIL/SKIP, detail).

The same printer and JSON writer serve host tests, KUnit, lab runs, static
checks, mutants and series checks.
"""

import dataclasses
import json
from pathlib import Path
from typing import Iterable, List, TextIO

PASS, FAIL, SKIP = 'PASS', 'FAIL', 'SKIP'


@dataclasses.dataclass(frozen=True)
class Verdict:
	name: str
	status: str
	detail: str = ''
	seconds: float = 0.0

	def line(self) -> str:
		timing = f' [{self.seconds:.0f}s]' if self.seconds >= 1 else ''
		detail = f': {self.detail}' if self.detail else ''
		return f'{self.status} {self.name}{detail}{timing}'


def summary(verdicts: Iterable[Verdict]) -> str:
	"""The closing line CI reads: 'N passed, N failed[, N skipped]'."""
	vs = list(verdicts)
	passed = sum(v.status == PASS for v in vs)
	failed = sum(v.status == FAIL for v in vs)
	skipped = sum(v.status == SKIP for v in vs)
	line = f'{passed} passed, {failed} failed'
	return line + (f', {skipped} skipped' if skipped else '')


def write_json(path: Path, verdicts: List[Verdict]) -> None:
	path.parent.mkdir(parents=True, exist_ok=True)
	data = {'summary': summary(verdicts),
		'checks': [dataclasses.asdict(v) for v in verdicts]}
	path.write_text(json.dumps(data, indent=1) + '\n')


def read_json(path: Path) -> List[Verdict]:
	"""What write_json() wrote; ValueError/OSError if it is not that."""
	data = json.loads(path.read_text())
	try:
		return [Verdict(**v) for v in data['checks']]
	except (KeyError, TypeError) as e:
		raise ValueError(f'not a verdicts file: {e}') from e


def report(verdict: Verdict, out: TextIO) -> None:
	print(verdict.line(), file=out, flush=True)


def check(name: str, ok: bool, detail: str) -> Verdict:
	"""PASS when ok, else FAIL, with the same detail either way."""
	return Verdict(name, PASS if ok else FAIL, detail)
