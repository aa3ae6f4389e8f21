#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Series mutants: parsing, and the commit a mutant inserts."""

import tempfile
import unittest
from pathlib import Path

from hiblab import paths
from hiblab.errors import LabError
from hiblab.series import mutants
from hiblab.series.captures import ME, mutant


class SeriesMutantTest(unittest.TestCase):
	def test_series_mutants_parse(self) -> None:
		for m in mutants.read_series_mutants(paths.REPO_ROOT, '6.12'):
			self.assertTrue(m.stops_at.startswith('series/'))
		with tempfile.TemporaryDirectory() as tmp:
			p = Path(tmp) / 'bad.patch'
			p.write_text('Inserts-after: 1\nStops-at: x\n\ndiff --git a b\n')
			with self.assertRaisesRegex(LabError, 'malformed'):
				mutants.parse_series_mutant(p)

	def test_mutant_commit_message(self) -> None:
		m = mutant('trailing-whitespace')
		msg = mutants.mutant_commit_message(
			m, m.path.read_text(), ('Hibernate Lab', ME))
		self.assertTrue(msg.startswith('x86/power: Series mutant '
					       'trailing-whitespace\n\n'))
		self.assertTrue(msg.endswith(f'\n\nSigned-off-by: Hibernate Lab '
					     f'<{ME}>'))


if __name__ == '__main__':
	unittest.main()
