# SPDX-License-Identifier: GPL-2.0
"""A thin wrapper around git for one tree: run, read, fail with one line."""

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Mapping, Optional

from hiblab.errors import LabError


class Git:
	"""git commands run in one work tree, with an optional extra environment."""

	def __init__(self, worktree: Path) -> None:
		self.worktree = worktree

	def attempt(self, args: List[str],
		    env: Optional[Mapping[str, str]] = None,
		    stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
		"""git args, whatever its exit status: all of what it said."""
		full_env: Dict[str, str] = dict(os.environ)
		# A user's hooks, templates or global identity must not change
		# what the tools produce.
		full_env.update({'GIT_CONFIG_NOSYSTEM': '1',
				 'GIT_TERMINAL_PROMPT': '0', 'LC_ALL': 'C'})
		if env:
			full_env.update(env)
		return subprocess.run(['git', '-C', str(self.worktree)] + args,
				      input=stdin, stdout=subprocess.PIPE,
				      stderr=subprocess.PIPE, env=full_env,
				      check=False)

	def run(self, args: List[str], env: Optional[Mapping[str, str]] = None,
		stdin: Optional[bytes] = None, check: bool = True) -> bytes:
		proc = self.attempt(args, env, stdin)
		if check and proc.returncode != 0:
			err = proc.stderr.decode(errors='replace').strip()
			first = err.splitlines()[-1] if err else f'exit {proc.returncode}'
			raise LabError(f'git {args[0]} failed in {self.worktree}: {first}')
		return proc.stdout

	def text(self, args: List[str], **kwargs) -> str:
		return self.run(args, **kwargs).decode().strip()

	def rev(self, ref: str) -> Optional[str]:
		"""The commit id a ref names, or None when it does not exist."""
		out = self.run(['rev-parse', '--verify', '-q', ref + '^{commit}'],
			       check=False)
		return out.decode().strip() or None

	def is_repo(self) -> bool:
		if not (self.worktree / '.git').exists():
			return False
		out = self.run(['rev-parse', '--show-toplevel'], check=False)
		return Path(out.decode().strip() or '/nonexistent') == \
			self.worktree.resolve()

	def dirty_paths(self) -> List[str]:
		out = self.run(['status', '--porcelain', '--untracked-files=normal'])
		return [line[3:] for line in out.decode().splitlines() if line]

	def tree_of(self, ref: str) -> str:
		return self.text(['rev-parse', ref + '^{tree}'])


def prepare_worktree(git: Git, worktree: Path, commit: str) -> Git:
	"""A clean worktree of `commit`; files that do not change keep mtimes."""
	wt = Git(worktree)
	if not worktree.exists():
		git.run(['worktree', 'prune'])
		git.run(['worktree', 'add', '-q', '--detach', str(worktree),
			 commit])
	else:
		# A git am that a killed run left would stop the next one
		# (looked for first: git am --abort alone takes ~0.5 s).
		if (worktree / wt.text(['rev-parse', '--git-path',
					'rebase-apply'])).exists():
			wt.run(['am', '--abort'], check=False)
		wt.run(['checkout', '-q', '-f', '--detach', commit])
		wt.run(['clean', '-q', '-fdx', '-e', '.gitignore'])
	return wt
