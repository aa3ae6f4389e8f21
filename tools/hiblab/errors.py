# SPDX-License-Identifier: GPL-2.0
"""The one exception type a user sees: a one-line problem plus what to do."""


class LabError(Exception):
	"""A user-facing failure; str() is the single line printed to stderr."""

	def __init__(self, problem: str, action: str = '') -> None:
		self.problem = problem
		self.action = action
		super().__init__(f'{problem}: {action}' if action else problem)
