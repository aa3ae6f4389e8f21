#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The report-check judges, on Chromium's captured renderings of real
reports (test_data/report/: see its README) and on PNGs built here."""

import struct
import unittest
import zlib
from pathlib import Path

from hiblab.lab import browser, report
from hiblab.verdict import FAIL, PASS

DATA = Path(__file__).parent / 'test_data' / 'report'


def png(rows: list, channels: int = 3, kinds=(0,)) -> bytes:
	"""An 8-bit PNG of these rows, each row filtered with the next of
	`kinds` (None, Sub, Up, Average, Paeth), as encoders do."""
	def chunk(kind: bytes, body: bytes) -> bytes:
		return struct.pack('>I', len(body)) + kind + body + \
			struct.pack('>I', zlib.crc32(kind + body))
	raw, prev = b'', bytes(len(rows[0]))
	for y, row in enumerate(rows):
		kind = kinds[y % len(kinds)]
		out = bytearray()
		for i, v in enumerate(row):
			a = row[i - channels] if i >= channels else 0
			b = prev[i]
			c = prev[i - channels] if i >= channels else 0
			p = a + b - c
			paeth = min((abs(p - a), 0, a), (abs(p - b), 1, b),
				    (abs(p - c), 2, c))[2]
			pred = (0, a, b, (a + b) // 2, paeth)[kind]
			out.append((v - pred) & 0xff)
		raw += bytes([kind]) + bytes(out)
		prev = row
	width = len(rows[0]) // channels
	head = struct.pack('>IIBBBBB', width, len(rows), 8,
			   2 if channels == 3 else 6, 0, 0, 0)
	return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', head) + \
		chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')


class PngTest(unittest.TestCase):
	def test_every_filter_decodes(self) -> None:
		rows = [bytes((x * 7 + y * 13 + c * 50) & 0xff
			      for x in range(5) for c in range(3))
			for y in range(5)]
		for kind in range(5):
			with self.subTest(filter=kind):
				self.assertEqual(browser.read_png(
					png(rows, kinds=(kind,))), (5, 5, rows))

	def test_alpha_is_dropped(self) -> None:
		rgba = [bytes([1, 2, 3, 255, 4, 5, 6, 128])]
		self.assertEqual(browser.read_png(png(rgba, 4, (1,))),
				 (2, 1, [bytes([1, 2, 3, 4, 5, 6])]))

	def test_not_a_png(self) -> None:
		with self.assertRaisesRegex(ValueError, 'not a PNG'):
			browser.read_png(b'GIF89a')


class CapturedRenderingTest(unittest.TestCase):
	def test_a_passing_run(self) -> None:
		shot = (DATA / 'smoke.png').read_bytes()
		self.assertEqual(browser.judge_screenshot(shot, False).status,
				 PASS)
		# The same picture cannot pass as a failed run's.
		v = browser.judge_screenshot(shot, True)
		self.assertEqual(v.status, FAIL)
		self.assertIn('status band', v.detail)

	def test_a_failing_run(self) -> None:
		shot = (DATA / 'mwait.png').read_bytes()
		v = browser.judge_screenshot(shot, True)
		self.assertEqual(v.status, PASS)
		self.assertIn('status band red', v.detail)
		self.assertEqual(browser.judge_screenshot(shot, False).status,
				 FAIL)

	def test_a_screenshot_of_another_size(self) -> None:
		tiny = png([bytes.fromhex(report.COLOURS[PASS][1:]) * 4] * 4)
		v = browser.judge_screenshot(tiny, False)
		self.assertEqual((v.status, v.detail), (FAIL, '4x4, not 1024x1280'))

	def test_the_dom_names_every_check(self) -> None:
		dom = (DATA / 'smoke.dom.html').read_text()
		title = 'lab run'
		ok = browser.judge_dom(dom, title, ['hlt-parking', 'pattern'])
		self.assertEqual(ok.status, PASS)
		bad = browser.judge_dom(dom, title, ['hlt-parking',
							 'no-such-check'])
		self.assertEqual(bad.status, FAIL)
		self.assertIn('"no-such-check"', bad.detail)


if __name__ == '__main__':
	unittest.main()
