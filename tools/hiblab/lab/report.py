# SPDX-License-Identifier: GPL-2.0
"""results/<run>/report.html: one page a person can look at per lab run.

Built from the records the judges read (lab.records) and the verdicts they
gave, never from a second reading of the logs: per scenario the verdict
lines with links to the logs, a timeline of the boots on the host's clock
with the kernels' own phase stamps, the vCPUs at swsusp_arch_resume with
the code around each RIP, and both kernels' KASLR layouts; for a run of
several cycles (--stress) a chart of their times.  Self-contained: inline
CSS and SVG, no script, no fetch, readable from the file system.
"""

import html
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab.errors import LabError
from hiblab.lab import judge, positions, records
from hiblab.lab.records import BootRecord, CycleRecord, ScenarioRun
from hiblab.lab.scenarios import Scenario
from hiblab.verdict import FAIL, PASS, Verdict

REPORT = 'report.html'
COLOURS = {PASS: '#1a7f37', FAIL: '#cf222e', 'SKIP': '#6e7781'}
BAD_BACKGROUND = '#ffebe9'	# a failing vCPU's row (lab.browser looks)
# Host-side segments of each boot, by the record's time names.
SEGMENTS = {
	'image': (('image-boot', 'boot, pattern fill', '#54aeff'),
		  ('hibernate-to-power-off', 'freeze, snapshot, write, '
		   'power-off', '#fb8f44')),
	'restore': (('restore-boot', 'boot', '#54aeff'),
		    ('to-swsusp_arch_resume', 'image read, CPUs down', '#4ac26b'),
		    ('restore-to-done', 'jump, thaw, verify', '#a475f9')),
}
_IO = re.compile(r'PM: hibernation: (Wrote|Read) (\d+) kbytes in ([\d.]+) '
		 r'seconds \(([\d.]+) MB/s\)')
CSS = ('body{font:14px sans-serif;margin:1.5em;color:#1f2328}'
       'h1{font-size:1.4em}h2{font-size:1.2em;border-top:1px solid #d0d7de;'
       'padding-top:.8em}table{border-collapse:collapse;margin:.4em 0}'
       'td,th{border:1px solid #d0d7de;padding:2px 6px;vertical-align:top;'
       'text-align:left}pre{margin:0;font-size:12px}.PASS{color:#1a7f37}'
       '.FAIL{color:#cf222e;font-weight:bold}.SKIP{color:#6e7781}'
       f'tr.bad{{background:{BAD_BACKGROUND}}}.diff{{background:#fff8c5}}'
       '.note{color:#57606a}')


def esc(text: object) -> str:
	return html.escape(str(text))


def duration(boot: BootRecord) -> float:
	"""Host seconds from QEMU's start to its end."""
	segs = segments(boot)
	return segs[-1][1] - boot.started if segs else 0.0


def segments(b: BootRecord) -> List[Tuple[float, float, str, str]]:
	"""(start, stop, what, colour) on the host clock: the first wait,
	then each later wait from where the one before it ended (all later
	waits are measured from the same mark, the end of the first)."""
	out = []
	t = b.started
	mark = None
	for name, what, colour in SEGMENTS[b.kernel]:
		if name not in b.times:
			continue
		if mark is None:
			mark = b.started + b.times[name]
			out.append((b.started, mark, what, colour))
			t = mark
			continue
		stop = mark + b.times[name]
		out.append((t, stop, what, colour))
		t = stop
	return out


def image_io(boot: BootRecord) -> List[str]:
	"""'Wrote 389312 kbytes in 2.76 s (141.05 MB/s)' lines of a boot."""
	return [f'{m.group(1)} {int(m.group(2)) >> 10} MiB in {m.group(3)} s '
		f'({m.group(4)} MB/s)' for m in map(_IO.search, boot.console) if m]


def snapshot_stamp(boot: Optional[BootRecord]) -> Optional[float]:
	"""The image kernel's clock when it took the snapshot: the restored
	kernel's clock goes on from there."""
	if boot is None:
		return None
	stamps = [float(m.group(1)) for m in (re.match(
		r'\[\s*(\d+\.\d+)\] PM: hibernation: Creating image', l)
		for l in boot.console) if m]
	return stamps[-1] if stamps else None


def timeline(record: CycleRecord) -> str:
	"""SVG: one row per boot on the host clock, the host's segments as
	bars, the kernels' printk phases as ticks, the breakpoint in red."""
	boots = record.boots
	end = max([b.started + duration(b) for b in boots] + [1.0])
	width, left, row = 900, 110, 56
	x = lambda t: left + (width - left - 10) * t / end	# noqa: E731
	out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
	       f'height="{row * len(boots) + 30}" font-size="11">']
	for i, b in enumerate(boots):
		y = 10 + i * row
		out.append(f'<text x="0" y="{y + 14}">{esc(b.name)}</text>')
		for start, stop, what, colour in segments(b):
			out.append(f'<rect x="{x(start):.1f}" y="{y}" width="'
				   f'{max(1, x(stop) - x(start)):.1f}" height="18" '
				   f'fill="{colour}"><title>{esc(what)}: '
				   f'{stop - start:.1f} s</title></rect>')
		bp = b.times.get('to-swsusp_arch_resume')
		if bp is not None:
			at = b.started + b.times['restore-boot'] + bp
			out.append(f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{y - 3}"'
				   f' y2="{y + 21}" stroke="#cf222e" stroke-width="2">'
				   '<title>breakpoint at swsusp_arch_resume: '
				   f'{at:.1f} s</title></line>')
		out += _ticks(b, boots[i - 1] if i else None, x, y)
	out.append(f'<text x="{left}" y="{row * len(boots) + 24}">0 s</text>'
		   f'<text x="{width - 60}" y="{row * len(boots) + 24}">'
		   f'{end:.0f} s</text></svg>')
	return '\n'.join(out)


def _ticks(b: BootRecord, before: Optional[BootRecord], x, y: int
	   ) -> List[str]:
	"""The kernels' phase stamps: the booting kernel's from QEMU's start;
	the image kernel's after the jump from the breakpoint on (its clock
	goes on from its snapshot)."""
	stamps = b.phases()
	resumed = set(records.RESUMED_PHASES)
	bp = b.times.get('to-swsusp_arch_resume')
	snap = snapshot_stamp(before)
	out = []
	for k, (name, stamp) in enumerate(sorted(stamps.items(),
						 key=lambda kv: kv[1])):
		if name in resumed:
			if bp is None or snap is None:
				continue
			at = b.started + b.times['restore-boot'] + bp + stamp - snap
		else:
			at = b.started + stamp
		out.append(f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{y + 18}" '
			   f'y2="{y + 26}" stroke="#1f2328"><title>{esc(name)}: '
			   f'console [{stamp:.3f}]</title></line><text x="'
			   f'{x(at):.1f}" y="{y + 34 + 9 * (k % 2)}" font-size="9">'
			   f'{esc(name)}</text>')
	return out


def _boot_of(check: str, boots: List[BootRecord]) -> BootRecord:
	"""The boot whose logs a check was judged from."""
	m = re.match(r'cycle(\d+)/(.*)', check)
	n, name = (int(m.group(1)), m.group(2)) if m else (1, check)
	if name in ('image-boot', 'image-saved', 'save-refused'):
		n -= 1
	return boots[min(max(n, 0), len(boots) - 1)]


def verdict_rows(scenario: str, run_dir: str, verdicts: List[Verdict],
		 boots: List[BootRecord]) -> str:
	rows = []
	for v in verdicts:
		check = v.name.split('/', 1)[1] if '/' in v.name else v.name
		links = ''
		if boots:
			b = _boot_of(check, boots)
			links = ' '.join(f'<a href="{esc(run_dir)}/{esc(f)}">{esc(f)}'
					 '</a>' for f in (b.console_file.name,
							  b.agent_file.name, b.gdb)
					 if f)
		rows.append(f'<tr><td class="{v.status}">{v.status}</td><td>'
			    f'{esc(check)}</td><td>{esc(v.detail)}</td><td>{links}'
			    '</td></tr>')
	return '<table><tr><th></th><th>check</th><th>detail</th><th>logs' \
		'</th></tr>' + ''.join(rows) + '</table>'


def vcpu_table(boot: BootRecord) -> str:
	rows = []
	for c in boot.vcpus or []:
		if c.cpu == 0:
			safe, where = True, f'CPU0 {positions.vcpu_state(c)} in ' \
				f'{c.symbol} (the boot CPU, restoring)'
		else:
			safe, where = positions.parking_place(c)
		code = '\n'.join(f'<span class="FAIL">{esc(l)}</span>' if
				 l.startswith('>') and not safe else esc(l)
				 for l in c.code) or \
			'(no code: outside the kernel text)'
		rows.append(f'<tr class="{"" if safe else "bad"}"><td>CPU{c.cpu}'
			    f'</td><td class="{PASS if safe else FAIL}">'
			    f'{"parked" if safe else "NOT PARKED"}</td><td>'
			    f'{esc(where)}<br><span class="note">RIP {c.pc:#x}'
			    f'</span></td><td><pre>{code}</pre></td></tr>')
	if not rows:
		return '<p class="note">no vCPU positions: the breakpoint was ' \
			'not armed or not reached.</p>'
	return f'<h3>vCPUs at swsusp_arch_resume ({esc(boot.name)})</h3>' \
		'<table><tr><th>vCPU</th><th></th><th>where</th><th>code ' \
		'(&gt; marks the RIP)</th></tr>' + ''.join(rows) + '</table>'


def cpu_state_table(boot: BootRecord) -> str:
	"""Each holder's registers after the resume that boot ran: what it
	held, and every register that came back different."""
	states = [e for e in boot.events() if e.name == 'cpu-state']
	if not states:
		return ''
	bad = [e for e in boot.events() if e.name == 'cpu-state-bad']
	rows = []
	for e in states:
		mine = [b for b in bad if (b.get('round'), b.get('cpu'),
					   b.get('who')) == (e.get('round'),
							     e.get('cpu'),
							     e.get('who'))]
		ok = e.get('bad') == '0' and e.get('regs') != 'unanswered'
		diff = '<br>'.join(f'{esc(b.get("reg"))}: {esc(b.get("expected"))}'
				   f' -&gt; {esc(b.get("found"))}' for b in mine)
		who = 'hibernating task' if e.get('who') == 'task' else 'worker'
		rows.append(f'<tr class="{"" if ok else "bad"}"><td>CPU'
			    f'{esc(e.get("cpu"))}</td><td>{who}</td>'
			    f'<td class="{PASS if ok else FAIL}">'
			    f'{"intact" if ok else esc(e.get("bad")) + " differ"}'
			    f'</td><td>{esc(e.get("regs").replace(",", ", "))}</td>'
			    f'<td>{diff}</td></tr>')
	return f'<h3>Registers held across the hibernation ({esc(boot.name)})' \
		'</h3><table><tr><th>CPU</th><th>holder</th><th></th><th>' \
		'registers verified</th><th>differ (expected -&gt; found)</th>' \
		'</tr>' + ''.join(rows) + '</table>'


def layouts(boots: List[BootRecord]) -> str:
	cols: List[Tuple[str, Dict[str, int]]] = []
	for b in boots:
		try:
			cols.append((b.name, judge.layout(b.events(), b.kernel)))
		except LabError:
			continue
	if not cols:
		return ''
	keys = list(cols[0][1])
	rows = []
	for k in keys:
		vals = [c.get(k) for _, c in cols]
		diff = ' class="diff"' if len(set(vals)) > 1 else ''
		rows.append(f'<tr><td>{esc(k)}</td>' + ''.join(
			f'<td{diff}><code>{v:#x}</code></td>' if v is not None else
			'<td></td>' for v in vals) + '</tr>')
	return '<h3>KASLR layouts</h3><table><tr><th></th>' + ''.join(
		f'<th>{esc(n)}</th>' for n, _ in cols) + '</tr>' + \
		''.join(rows) + '</table>'


def stress_chart(cycles: List[Tuple[Scenario, CycleRecord, bool]]) -> str:
	"""Per-cycle wall time as bars, failures red; each cycle's offline
	sets beside it."""
	if len(cycles) < 2:
		return ''
	top = max(r.seconds for _, r, _ in cycles) or 1.0
	bar, height = 28, 160
	out = [f'<h2>Cycles: wall time each</h2><svg xmlns="http://www.w3.org/2000/svg" width='
	       f'"{40 + bar * len(cycles)}" height="{height + 40}" '
	       'font-size="10">']
	for i, (s, r, failed) in enumerate(cycles):
		h = height * r.seconds / top
		out.append(f'<rect x="{40 + i * bar}" y="{height - h + 10:.1f}" '
			   f'width="{bar - 6}" height="{h:.1f}" fill="'
			   f'{COLOURS[FAIL] if failed else COLOURS[PASS]}"><title>'
			   f'{esc(s.name)}: {r.seconds:.0f} s</title></rect>'
			   f'<text x="{40 + i * bar}" y="{height + 24}">{i + 1}'
			   '</text>')
	out.append(f'<text x="0" y="18">{top:.0f} s</text></svg>')
	rows = ''.join(f'<tr><td class="{FAIL if f else PASS}">{esc(s.name)}'
		       f'</td><td>{r.seconds:.0f} s</td><td>{esc(s.description)}'
		       '</td></tr>' for s, r, f in cycles)
	return '\n'.join(out) + '<table><tr><th>scenario</th><th>time</th>' \
		'<th>what it ran (--stress: seed, offline sets)</th></tr>' + \
		rows + '</table>'


def kernel_name(s: Scenario, restore: bool) -> str:
	"""A scenario's image or restore kernel as the grid names it: the
	series' own build, a variant, or Debian's."""
	name = (s.restore if restore else s.build).name
	return 'series' if name == 'plain' else name


def expected(s: Scenario) -> str:
	"""A cell's expected outcome, as the grid shows it."""
	if s.resets:
		return 'resets'
	if s.refusal:
		return 'refused'
	return 'save fails' if s.save_fails else 'restored'


def kernel_grid(scenarios: List[Scenario], failed: set) -> str:
	"""Image kernel rows, restore kernel columns, each cell the run's
	scenarios of that pair with their expected outcome, coloured and
	linked to their sections; '' when every scenario boots the same
	kernel twice."""
	pairs: Dict[Tuple[str, str], List[Scenario]] = {}
	for s in scenarios:
		pairs.setdefault((kernel_name(s, False), kernel_name(s, True)),
				 []).append(s)
	rows = sorted({i for i, _ in pairs}, key=lambda k: k != 'series')
	cols = sorted({r for _, r in pairs}, key=lambda k: k != 'series')
	if len(rows) == len(cols) == 1:
		return ''
	out = ['<h2>Image kernel (rows) x restore kernel (columns)</h2><table>'
	       '<tr><th></th>' + ''.join(f'<th>{esc(c)}</th>' for c in cols) +
	       '</tr>']
	for r in rows:
		cells = []
		for c in cols:
			cell = pairs.get((r, c), [])
			bad = any(s.name in failed for s in cell)
			style = f' style="background:{COLOURS[FAIL if bad else PASS]}' \
				'22"' if cell else ''
			cells.append(f'<td{style}>' + ' '.join(
				f'<a href="#{esc(s.name)}" class="'
				f'{FAIL if s.name in failed else PASS}">{esc(s.name)}</a>'
				f' ({expected(s)})' for s in cell) + '</td>')
		out.append(f'<tr><th>{esc(r)}</th>{"".join(cells)}</tr>')
	return '\n'.join(out) + '</table>'


def render(title: str, verdicts: List[Verdict], runs: List[ScenarioRun]
	   ) -> str:
	"""The page: the run's verdicts and each scenario's last attempt."""
	cycles = [(r.scenario, r.results, r.record) for r in runs]
	failed = {v.name.split('/', 1)[0] for v in verdicts if v.status == FAIL}
	status = FAIL if failed else PASS
	parts = [f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
		 f'{esc(title)}</title><style>{CSS}</style></head><body>',
		 f'<div style="background:{COLOURS[status]};height:12px"></div>',
		 f'<h1>{esc(title)}: <span class="{status}">{status}</span></h1>',
		 '<p>' + ' '.join(f'<a href="#{esc(s.name)}" class="'
				  f'{FAIL if s.name in failed else PASS}">'
				  f'{esc(s.name)}</a>' for s, _, _ in cycles) +
		 '</p>',
		 kernel_grid([s for s, _, _ in cycles], failed),
		 stress_chart([(s, r, s.name in failed) for s, _, r in cycles])]
	for s, where, r in cycles:
		mine = [v for v in verdicts if v.name.startswith(s.name + '/')]
		io = [l for b in r.boots for l in image_io(b)]
		parts.append(
			f'<h2 id="{esc(s.name)}">{esc(s.name)} <span class="'
			f'{FAIL if s.name in failed else PASS}">'
			f'{FAIL if s.name in failed else PASS}</span></h2>'
			f'<p>{esc(s.description)}; {esc(r.accel)}; {r.seconds:.0f} s; '
			f'results in <a href="{esc(where.name)}">{esc(where.name)}'
			'</a></p>' +
			verdict_rows(s.name, where.name, mine, r.boots) +
			'<h3>Timeline (host clock)</h3>' + timeline(r) +
			'<p class="note">bars: host wall clock per boot (blue boot, '
			'orange hibernate, green image read, violet jump to the '
			'end); ticks: printk phases on the booting kernel\'s clock '
			'from QEMU\'s start, and the resumed image kernel\'s from '
			'the breakpoint (red).</p>' +
			(f'<p>image: {esc("; ".join(io))}</p>' if io else '') +
			''.join(vcpu_table(b) for b in r.boots if b.vcpus is not None)
			+ ''.join(cpu_state_table(b) for b in r.boots)
			+ layouts(r.boots))
	parts.append('</body></html>')
	return '\n'.join(parts)


def write(results: Path, title: str, verdicts: List[Verdict],
	  runs: List[ScenarioRun]) -> Path:
	path = results / REPORT
	path.write_text(render(title, verdicts, runs))
	return path
