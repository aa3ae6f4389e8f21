# SPDX-License-Identifier: GPL-2.0
"""A lab report as a person sees it: rendered by headless Chromium.

Running (render) is apart from judging (judge_dom, judge_screenshot): the
judges read the DOM text and the PNG Chromium wrote, so they are tested on
a captured real rendering (test_data/report/).  Chromium is an
optional package set (tools/report-packages.txt), installed only by
`make report-check`: make test and make qemu-hibernate never need it.
"""

import dataclasses
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import List, Tuple

from hiblab import paths
from hiblab.errors import LabError
from hiblab.lab import report
from hiblab.verdict import FAIL, PASS, Verdict

PACKAGES = paths.TOOLS_DIR / 'report-packages.txt'
BROWSERS = ('chromium-headless-shell', 'chromium')
WINDOW = (1024, 1280)
TIMEOUT = 120.0


@dataclasses.dataclass(frozen=True)
class Rendering:
	"""What Chromium made of a report."""
	report: Path
	dom: str		# --dump-dom output
	png: bytes		# --screenshot output


def browser() -> str:
	for name in BROWSERS:
		path = shutil.which(name)
		if path:
			return path
	raise LabError('no headless Chromium', 'run `make report-check`, '
		       'which installs tools/report-packages.txt')


def _run(argv: List[str], what: str) -> subprocess.CompletedProcess:
	try:
		proc = subprocess.run(argv, stdout=subprocess.PIPE,
				      stderr=subprocess.PIPE, timeout=TIMEOUT,
				      check=False)
	except subprocess.TimeoutExpired as e:
		raise LabError(f'Chromium did not finish {what} in '
			       f'{TIMEOUT:.0f}s', 'run it by hand: ' +
			       ' '.join(argv)) from e
	if proc.returncode != 0:
		tail = proc.stderr.decode(errors='replace').strip().splitlines()
		raise LabError(f'Chromium failed {what} (exit {proc.returncode}: '
			       f'{tail[-1] if tail else "no output"})',
			       'run it by hand: ' + ' '.join(argv))
	return proc


def render(page: Path, out: Path) -> Rendering:
	"""The report's DOM and a screenshot of its first WINDOW pixels."""
	exe = browser()
	# --no-sandbox: CI runs as root, where Chromium's sandbox refuses.
	common = [exe, '--headless', '--no-sandbox', '--disable-gpu',
		  '--hide-scrollbars', f'--window-size={WINDOW[0]},{WINDOW[1]}']
	url = page.resolve().as_uri()
	dom = _run(common + ['--dump-dom', url], 'the DOM').stdout.decode()
	out.mkdir(parents=True, exist_ok=True)
	png = out / 'report.png'
	_run(common + [f'--screenshot={png}', url], 'the screenshot')
	(out / 'report.dom.html').write_text(dom)
	return Rendering(page, dom, png.read_bytes())


def read_png(data: bytes) -> Tuple[int, int, List[bytes]]:
	"""(width, height, RGB rows) of an 8-bit RGB or RGBA PNG."""
	if data[:8] != b'\x89PNG\r\n\x1a\n':
		raise ValueError('not a PNG')
	pos, idat, head = 8, b'', None
	while pos < len(data):
		size, kind = struct.unpack('>I4s', data[pos:pos + 8])
		body = data[pos + 8:pos + 8 + size]
		if kind == b'IHDR':
			head = struct.unpack('>IIBBBBB', body)
		elif kind == b'IDAT':
			idat += body
		pos += 12 + size
	if head is None or head[2] != 8 or head[3] not in (2, 6) or head[6]:
		raise ValueError(f'unsupported PNG header {head}')
	width, height, channels = head[0], head[1], 3 if head[3] == 2 else 4
	raw, stride = zlib.decompress(idat), width * channels
	rows: List[bytes] = []
	prev = bytearray(stride)
	for y in range(height):
		kind = raw[y * (stride + 1)]
		line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
		for i in range(stride):
			a = line[i - channels] if i >= channels else 0
			b = prev[i]
			c = prev[i - channels] if i >= channels else 0
			if kind == 1:
				line[i] = (line[i] + a) & 0xff
			elif kind == 2:
				line[i] = (line[i] + b) & 0xff
			elif kind == 3:
				line[i] = (line[i] + (a + b) // 2) & 0xff
			elif kind == 4:
				p = a + b - c
				pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
				pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
				line[i] = (line[i] + pred) & 0xff
		prev = line
		rows.append(bytes(v for i, v in enumerate(line)
				  if channels == 3 or i % 4 != 3))
	return width, height, rows


def rgb(colour: str) -> bytes:
	return bytes.fromhex(colour.lstrip('#'))


def count(rows: List[bytes], colour: bytes) -> int:
	"""Pixels of exactly this colour."""
	return sum(sum(1 for x in range(0, len(r), 3) if r[x:x + 3] == colour)
		   for r in rows)


def judge_screenshot(png: bytes, failed: bool) -> Verdict:
	"""The page drew, at the window's size, with the run's status band in
	the run's colour and, on a failed run, a red-backed vCPU or check."""
	name = 'report/screenshot'
	try:
		width, height, rows = read_png(png)
	except (ValueError, zlib.error, struct.error) as e:
		return Verdict(name, FAIL, f'unreadable screenshot: {e}')
	if (width, height) != WINDOW:
		return Verdict(name, FAIL, f'{width}x{height}, not {WINDOW[0]}x'
			       f'{WINDOW[1]}')
	band = rgb(report.COLOURS[FAIL if failed else PASS])
	other = rgb(report.COLOURS[PASS if failed else FAIL])
	top = rows[:80]
	got, wrong = count(top, band), count(top, other)
	bad_rows = count(rows, rgb(report.BAD_BACKGROUND))
	if got < width // 2 or wrong > width // 4:
		return Verdict(name, FAIL, f'status band: {got} pixels of '
			       f'{band.hex()} and {wrong} of {other.hex()} in the '
			       'top 80 rows')
	if failed and not bad_rows:
		return Verdict(name, FAIL, 'a failed run, but no failing row '
			       'is drawn')
	return Verdict(name, PASS, f'{width}x{height}, status band '
		       f'{"red" if failed else "green"} ({got} pixels), '
		       f'{bad_rows} pixels of failing rows')


def judge_dom(dom: str, title: str, checks: List[str]) -> Verdict:
	"""The rendered page says what the run said: its title and every
	check named."""
	name = 'report/dom'
	text = re.sub(r'<[^>]+>', ' ', dom)
	missing = [c for c in [title] + checks if c not in text]
	if missing:
		return Verdict(name, FAIL, f'{len(missing)} of {len(checks) + 1} '
			       f'texts missing from the rendered page, first '
			       f'"{missing[0]}"')
	return Verdict(name, PASS, f'title and all {len(checks)} checks in the '
		       f'rendered page ({len(dom)} bytes of DOM)')
