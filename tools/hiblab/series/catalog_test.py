#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Series files: what they say, and what a catalog of them must be."""

import unittest
from pathlib import Path

from hiblab import paths
from hiblab.base import overlay
from hiblab.errors import LabError
from hiblab.series import catalog

GOOD = ('Prefix: PATCH\nVersion: 2\nTarget: tip x86/mm\nSteps: 0001 0002\n'
	'Checkpatch: UNKNOWN_COMMIT_ID in 1: upstream ids\n\n'
	'x86/mm: Subject\n\nBody.\n')


def series(name: str, steps, requires=()) -> catalog.SeriesDef:
	return catalog.SeriesDef(name, Path(f'{name}.series'), 'PATCH', 1,
				 't', tuple(steps), tuple(requires))


class ParseTest(unittest.TestCase):
	def test_a_series_file(self) -> None:
		s = catalog.parse_series(Path('ident-map.series'), GOOD)
		self.assertEqual((s.name, s.prefix, s.version, s.target, s.steps,
				  s.requires, s.hold, s.subject),
				 ('ident-map', 'PATCH', 2, 'tip x86/mm', (1, 2), (),
				  '', 'x86/mm: Subject'))
		self.assertEqual(s.justifications(),
				 '   UNKNOWN_COMMIT_ID in 1: upstream ids\n')
		self.assertEqual(s.line(), 'ident-map: [PATCH v2] to tip x86/mm; '
				 'steps 0001 0002; requires nothing')

	def test_bad_files_are_named(self) -> None:
		for text, why in (
			(GOOD.replace('Prefix: PATCH', 'Prefix: RFC'), 'Prefix'),
			(GOOD.replace('Version: 2', 'Version: v2'), 'Version'),
			(GOOD.replace('Steps: 0001 0002', 'Steps: 1 2'), 'Steps'),
			(GOOD.replace('Target: tip x86/mm\n', ''), 'no Target'),
			(GOOD.replace('Version: 2', 'Verison: 2'), 'unknown header'),
			(GOOD.split('\n\n')[0] + '\n', 'no cover letter'),
			(GOOD.replace('Version: 2\n', 'Version: 2\nVersion: 3\n'),
			 'twice')):
			with self.subTest(why=why):
				with self.assertRaisesRegex(LabError,
							    f'x.series: .*{why}'):
					catalog.parse_series(Path('x.series'), text)


class CatalogTest(unittest.TestCase):
	def test_every_step_in_exactly_one_series(self) -> None:
		catalog.check_catalog([series('a', (1, 2)), series('b', (3,))], 3)
		with self.assertRaisesRegex(LabError, 'step 0002 is in both a '
					    'and b'):
			catalog.check_catalog([series('a', (1, 2)),
					       series('b', (2, 3))], 3)
		with self.assertRaisesRegex(LabError, r'step\(s\) 0003 in no '
					    'series'):
			catalog.check_catalog([series('a', (1, 2))], 3)
		with self.assertRaisesRegex(LabError, 'not in stack order'):
			catalog.check_catalog([series('a', (2, 1))], 2)

	def test_prerequisites_in_the_order_they_apply(self) -> None:
		a, b = series('a', (1,)), series('b', (2,), ('a',))
		c = series('c', (3,), ('b', 'a'))
		self.assertEqual(catalog.prerequisites(c, [a, b, c]), [a, b])
		self.assertEqual(catalog.prerequisites(a, [a, b, c]), [])
		with self.assertRaisesRegex(LabError, 'requires x, which is not'):
			catalog.check_catalog([series('a', (1,), ('x',))], 1)
		with self.assertRaisesRegex(LabError, 'a -> b -> a require each '
					    'other'):
			catalog.check_catalog([series('a', (1,), ('b',)),
					       series('b', (2,), ('a',))], 2)

	def test_the_shipped_series(self) -> None:
		for base in ('6.12', '7.3'):
			steps = len(overlay.read_steps(paths.overlay_dir(
				paths.REPO_ROOT, base)))
			found = catalog.read_catalog(paths.REPO_ROOT, base, steps)
			with self.subTest(base=base):
				self.assertEqual(bool(found[0].hold), base == '6.12')
				self.assertIn('mwait-kick', [s.name for s in found])


if __name__ == '__main__':
	unittest.main()
