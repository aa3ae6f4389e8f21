# SPDX-License-Identifier: GPL-2.0
"""The kernel tree as the other tools ask for it: base imported, topic built."""

import dataclasses
from pathlib import Path
from typing import Callable, Optional

from hiblab import paths
from hiblab.base import fetch, overlay, pins
from hiblab.git import Git


@dataclasses.dataclass(frozen=True)
class TreeRequest:
	repo: Path
	cache: Path
	force: bool = False
	base: Optional[str] = None	# a section of linux-base.txt; None: default


@dataclasses.dataclass(frozen=True)
class Tree:
	git: Git
	pin: pins.BasePin
	base: str

	@property
	def path(self) -> Path:
		return self.git.worktree

	def overlay(self, repo: Path) -> Path:
		return paths.overlay_dir(repo, self.pin.name)


def open_base(req: TreeRequest,
	      progress: Callable[[str], None] = print) -> Tree:
	pin = pins.read_pin(paths.base_pin_file(req.repo), req.base)
	tree = paths.tree_dir(req.cache, pin.name)
	if pin.suite and not tree.exists():
		fetch.fetch(pin, req.cache, progress)
	git = pins.import_base(pin, tree, pin.tarball_path(req.cache),
				   progress=progress)
	return Tree(git, pin, pins.check_existing(pin, git))


def build_topic(req: TreeRequest,
		progress: Callable[[str], None] = print) -> Tree:
	"""Import (if needed) and point the topic branch at the overlay."""
	tree = open_base(req, progress)
	steps = overlay.read_steps(tree.overlay(req.repo))
	overlay.sync_topic(tree.git, tree.base, steps, force=req.force,
			       progress=progress)
	return tree


def ensure_topic(req: TreeRequest,
		 progress: Callable[[str], None] = print) -> Tree:
	"""Like build_topic, but a tree holding a developer's unexported work
	is used as it is (with a note) instead of being refused: testing work in
	progress is what the test commands are for."""
	tree = open_base(req, progress)
	reason = overlay.unexported(tree.git, tree.base)
	if reason:
		progress(f'tree: testing the tree as it is: {reason}')
		return tree
	steps = overlay.read_steps(tree.overlay(req.repo))
	overlay.sync_topic(tree.git, tree.base, steps, progress=progress)
	return tree
