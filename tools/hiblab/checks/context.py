# SPDX-License-Identifier: GPL-2.0
"""What every check of `make test` gets: the run's request and the context
of its base (the kernel tree, the topic's kernels, where logs go)."""

import dataclasses
from pathlib import Path
from typing import Dict, List, Optional, Union

from hiblab.base import kernel_tree
from hiblab.errors import LabError
from hiblab.git import Git
from hiblab.kernel import variants
from hiblab.verdict import Verdict

@dataclasses.dataclass(frozen=True)
class TestRequest:
	repo: Path
	cache: Path
	only: List[str]
	jobs: int
	bases: List[str] = dataclasses.field(default_factory=list)  # []: all
	# Per-base checks left out of this run (make test's CI budget; make
	# test-all runs everything).
	skip: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
	# The bases after the first run beside it, from the start, their
	# kernel builds at BESIDE_NICE (make test: the first base's links,
	# boots and single-threaded steps leave a core idle); else in turn.
	side_by_side: bool = False


# Nice enough that a beside base's compiles take only the cycles the first
# base leaves idle; its boots keep the normal priority (their deadlines).
BESIDE_NICE = 19


@dataclasses.dataclass
class Context:
	req: TestRequest
	results: Path
	base: str = ''
	tree: Optional[kernel_tree.Tree] = None
	# The topic's kernels in the check worktree: the check kernel that the
	# KUnit boots, the static checks and the lab share, and its variants.
	kernels: Optional[variants.Kernels] = None
	nice: int = 0		# the nice level of its kernel builds

	def need_tree(self) -> kernel_tree.Tree:
		if self.tree is None:
			raise LabError('no kernel tree (the tree check failed)')
		return self.tree

	def log(self, name: str) -> Path:
		return self.results / f'{name}.log'

	def check_worktree(self) -> Git:
		"""The topic branch in the check worktree (hiblab.paths), where
		the KUnit, lab, mutant and series builds share directories."""
		return variants.check_worktree(self.need_tree().git,
					       self.req.cache, self.base)

	def check_kernels(self) -> variants.Kernels:
		"""The topic's kernels (built once per run, when first asked
		for), their build lines in the log named kernels."""
		if self.kernels is None:
			wt = self.check_worktree()
			log = self.log('kernels')

			def progress(s: str) -> None:
				with log.open('a') as f:
					print(s, file=f)
			self.kernels = variants.check_kernels(
				wt.worktree, self.base, self.req.cache,
				self.req.jobs, progress, self.nice)
		return self.kernels


CheckResult = Union[Verdict, List[Verdict]]
