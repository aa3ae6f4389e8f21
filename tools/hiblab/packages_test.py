#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host set-up: which packages are missing, what apt-get runs."""

import os
import subprocess
import unittest
from pathlib import Path
from unittest import mock

from hiblab import packages, paths
from hiblab.base import pins
from hiblab.errors import LabError
from hiblab.testing import quiet


class SetupTest(unittest.TestCase):
	def test_missing_respects_pinned_versions(self) -> None:
		have = {'b4': '0.12', 'linux-source-6.12': '6.12.117-1'}
		self.assertEqual(packages.missing(
			['b4', 'flex', 'linux-source-6.12=6.12.118-1'], have.get),
			['flex', 'linux-source-6.12=6.12.118-1'])

	def test_package_list_and_pin(self) -> None:
		pin = pins.read_pin(paths.base_pin_file())
		specs = packages.wanted([pin], packages.read_package_list())
		self.assertIn('qemu-system-x86', specs)
		self.assertIn(f'linux-source-6.12={pin.package_version}', specs)

	def test_not_root_prints_the_command(self) -> None:
		with mock.patch.object(os, 'geteuid', return_value=1000):
			with self.assertRaisesRegex(LabError, 'run: sudo apt-get '
						    'update && sudo apt-get install'):
				packages.install(['flex'], Path('/nonexistent'), quiet)

	def test_nothing_missing_runs_nothing(self) -> None:
		with mock.patch.object(subprocess, 'run') as run:
			packages.install([], Path('/nonexistent'), quiet)
		run.assert_not_called()


if __name__ == '__main__':
	unittest.main()
