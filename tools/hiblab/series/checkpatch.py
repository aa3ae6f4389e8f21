# SPDX-License-Identifier: GPL-2.0
"""checkpatch.pl --strict on every patch: running it, and judging its output
against the warnings the cover letter justifies ("   TYPE in 3, 4: why")."""

import dataclasses
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

from hiblab.series.mutants import SeriesMutant
from hiblab.series.runs import Run, judge_finished, passed, run_logged
from hiblab.verdict import FAIL, PASS, Verdict

_TOTAL = re.compile(r'^total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?'
		    r'(\d+) lines checked', re.M)


_CP_FIRST_LINE = re.compile(r'^(?:ERROR|WARNING|CHECK):.*$', re.M)


@dataclasses.dataclass(frozen=True)
class CheckpatchRun:
	"""checkpatch.pl on one patch of `b4 prep -p` (NNNN-<slug>.patch)."""
	patch: Path
	run: Run

	@property
	def step(self) -> str:
		return self.patch.name[:4]


_FINDING = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+):', re.M)


# "   UNKNOWN_COMMIT_ID in 3, 4, 6: why" in the cover letter's notes.
_JUSTIFIED = re.compile(r'^\s+([A-Z][A-Z0-9_]+) in ([\d, ]+):', re.M)


def justified_findings(cover: str) -> Dict[int, Set[str]]:
	"""Patch number -> checkpatch types the cover letter justifies."""
	out: Dict[int, Set[str]] = {}
	for m in _JUSTIFIED.finditer(cover):
		for n in re.findall(r'\d+', m[2]):
			out.setdefault(int(n), set()).add(m[1])
	return out


def checkpatch_verdict(name: str, output: str,
		       justified: Set[str] = frozenset()) -> Verdict:
	"""PASS when checkpatch found nothing, or only warnings and checks of
	types the cover letter justifies for this patch; never on an error."""
	m = _TOTAL.search(output)
	if not m:
		return Verdict(name, FAIL, 'checkpatch printed no summary: ' +
			       (output.strip().splitlines() or ['no output'])[-1])
	errors, warnings, checks = int(m[1]), int(m[2]), int(m[3] or 0)
	detail = f'{errors} errors, {warnings} warnings, {checks} checks, ' \
		f'{m[4]} lines'
	found = _FINDING.findall(output)
	open_ = [f'{level}:{kind}' for level, kind in found
		 if level == 'ERROR' or kind not in justified]
	if errors or open_ or len(found) < errors + warnings + checks:
		firsts = _CP_FIRST_LINE.findall(output)
		first = next((f for f in firsts if f.startswith('ERROR')),
			     firsts[0] if firsts else '')
		return Verdict(name, FAIL, detail + (f'; first: {first}'
						     if first else ''))
	if found:
		detail += '; justified in the cover letter: ' + ', '.join(
			sorted({kind for _, kind in found}))
	return Verdict(name, PASS, detail)


def cover_number(step: int, mutant: Optional[SeriesMutant]) -> int:
	"""The series file numbers the real series: a mutant's inserted
	commit is 0 (nothing justified for it), the patches after it move down
	by one; a mutant that inserts nothing changes no number."""
	if mutant and mutant.after and step > mutant.after:
		return 0 if step == mutant.after + 1 else step - 1
	return step


def judge_checkpatch(runs: Sequence[CheckpatchRun],
		     justified: Dict[int, Set[str]],
		     mutant: Optional[SeriesMutant] = None) -> List[Verdict]:
	"""One verdict per patch, then a stop when any of them failed."""
	verdicts = []
	for r in runs:
		judge_finished(r.run, f'checkpatch.pl on {r.patch.name}')
		n = cover_number(int(r.step), mutant)
		verdicts.append(checkpatch_verdict(
			f'series/checkpatch/{r.step}', r.run.output,
			justified.get(n, set())))
	if not passed(verdicts):
		verdicts.append(Verdict('series', FAIL, 'stopped: a patch has '
					'checkpatch findings (see '
					f'{runs[-1].run.log})'))
	return verdicts


def run_checkpatch(tree: Path, patches: Sequence[Path],
		   log: Path) -> List[CheckpatchRun]:
	"""checkpatch --strict on every patch, up to one that hangs."""
	script = tree / 'scripts' / 'checkpatch.pl'
	runs = []
	for p in patches:
		runs.append(CheckpatchRun(p, run_logged(
			[str(script), '--strict', '--show-types', str(p)],
			tree, log)))
		if runs[-1].run.timed_out:
			break
	return runs
