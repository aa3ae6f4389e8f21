#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The package's layering (hiblab/__init__.py): every import of a module
runs to a lower layer or stays in its own area."""

import ast
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent
AREAS = ('base', 'kernel', 'lab', 'series', 'gauntlet', 'lava')
# Lowest first; a unit may import its own and lower layers only.
LAYERS = (('errors',), ('paths', 'git', 'lock', 'verdict'), ('base',),
	  ('kernel', 'packages', 'cli', 'testing'), ('lab', 'series'),
	  ('gauntlet',), ('lava',), ('checks',))


def unit(parts: tuple) -> str:
	"""An area for a module in a subpackage, else the module's name."""
	return parts[0] if len(parts) > 1 and parts[0] in AREAS else parts[0]


def layer(name: str) -> int:
	return next(i for i, names in enumerate(LAYERS) if name in names)


def imports(path: Path):
	"""(line, imported unit) of every `from hiblab... import` in path."""
	for n in ast.walk(ast.parse(path.read_text())):
		if isinstance(n, ast.ImportFrom) and n.module and \
		   n.module.split('.')[0] == 'hiblab':
			for a in n.names:
				parts = tuple(f'{n.module}.{a.name}'.split('.')[1:])
				yield n.lineno, unit(parts)


class LayersTest(unittest.TestCase):
	def test_imports_run_down_the_layers(self) -> None:
		for path in sorted(ROOT.rglob('*.py')):
			rel = path.relative_to(ROOT)
			if path.name.endswith('_test.py') or rel == Path('__init__.py'):
				continue
			here = unit(tuple(p.removesuffix('.py') for p in rel.parts))
			for line, there in imports(path):
				if there == here:
					continue
				with self.subTest(f'{rel}:{line}'):
					self.assertLess(layer(there), layer(here),
							f'{rel}:{line} imports {there}')

	def test_every_unit_has_a_layer(self) -> None:
		units = {unit(tuple(p.removesuffix('.py') for p in
				    path.relative_to(ROOT).parts))
			 for path in ROOT.rglob('*.py')
			 if not path.name.endswith('_test.py')} - {'__init__'}
		for u in sorted(units):
			with self.subTest(u):
				layer(u)


if __name__ == '__main__':
	unittest.main()
