#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host set-up: which packages are missing, what apt-get runs."""

import os
import subprocess
import unittest
from pathlib import Path
from unittest import mock

import lab_base
import lab_paths
import lab_setup
from lab_errors import LabError
from lab_testing import quiet


class SetupTest(unittest.TestCase):
	def test_missing_respects_pinned_versions(self) -> None:
		have = {'b4': '0.12', 'linux-source-6.12': '6.12.117-1'}
		self.assertEqual(lab_setup.missing(
			['b4', 'flex', 'linux-source-6.12=6.12.118-1'], have.get),
			['flex', 'linux-source-6.12=6.12.118-1'])

	def test_package_list_and_pin(self) -> None:
		pin = lab_base.read_pin(lab_paths.base_pin_file())
		specs = lab_setup.wanted([pin], lab_setup.read_package_list())
		self.assertIn('qemu-system-x86', specs)
		self.assertIn(f'linux-source-6.12={pin.package_version}', specs)

	def test_not_root_prints_the_command(self) -> None:
		with mock.patch.object(os, 'geteuid', return_value=1000):
			with self.assertRaisesRegex(LabError, 'run: sudo apt-get '
						    'update && sudo apt-get install'):
				lab_setup.install(['flex'], Path('/nonexistent'), quiet)

	def test_nothing_missing_runs_nothing(self) -> None:
		with mock.patch.object(subprocess, 'run') as run:
			lab_setup.install([], Path('/nonexistent'), quiet)
		run.assert_not_called()


if __name__ == '__main__':
	unittest.main()
