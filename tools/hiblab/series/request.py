# SPDX-License-Identifier: GPL-2.0
"""What one `make series` run is asked to do."""

import dataclasses
from pathlib import Path
from typing import Optional, Tuple

from hiblab.git import Git
from hiblab.series.catalog import SeriesDef
from hiblab.series.identity import Identity
from hiblab.series.mutants import SeriesMutant
from hiblab.series.stack import Stack


@dataclasses.dataclass(frozen=True)
class SeriesRequest:
	tree: Git		# the kernel tree holding base and topic
	base: str		# where the series' patches start: the pristine
				# base with its prerequisites applied
	topic: str		# the series' last commit on that base
	cache: Path
	repo: Path
	results: Path
	jobs: int
	base_name: str		# the base's section in linux-base.txt
	builds: bool = True	# build every commit (the slow stage)
	# A series with Hold: is not sent: False leaves out its KUnit suites
	# on its own stack and its per-commit builds (make test; its commits
	# are built and tested in the topic), and rehearses the rest.
	held_stacks: bool = True
	# The configurations every commit is built with: 'guest' (the lab's)
	# and 'kunit' (the guest config plus our KUnit suites).
	configs: Tuple[str, ...] = ('guest', 'kunit')
	mutant: Optional[SeriesMutant] = None
	# Who sends the mails: author of our own patches, Signed-off-by on
	# every one (judge_sender refuses a placeholder before the run).
	# rehearsal: make test's run, with REHEARSAL_SENDER instead, in a
	# worktree of its own and with the mails marked not for sending.
	sender: Identity = ('', '')
	rehearsal: bool = False
	# The series (cover letter, prefix, version, recipients) and the
	# stack it was applied on (stack.build_stack).
	series: Optional[SeriesDef] = None
	stack: Optional[Stack] = None
