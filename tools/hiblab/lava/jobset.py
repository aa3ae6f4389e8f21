# SPDX-License-Identifier: GPL-2.0
"""`make lava-jobs`: the guests a base's scenarios need, copied as the
artifacts the jobs name (file:// paths here, or under --artifact-url for a
real lab), and one job file per scenario."""

import dataclasses
import lzma
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hiblab import cli, paths
from hiblab.gauntlet import mutants
from hiblab.kernel import variants
from hiblab.lab.scenarios import Scenario
from hiblab.lava import jobs

def zero_disk_xz(path: Path, mib: int) -> None:
	"""mib MiB of zeros, xz-compressed (a few hundred kB)."""
	if path.exists():
		return
	block = bytes(1 << 20)
	tmp = path.with_suffix('.part')
	with lzma.open(tmp, 'wb', preset=0) as f:
		for _ in range(mib):
			f.write(block)
	tmp.rename(path)


@dataclasses.dataclass
class JobSet:
	out: Path
	jobs: Dict[str, Path]		# scenario -> job file


def kernel_tree(session: cli.Session, base: str,
		mutant: Optional[mutants.Mutant]) -> Tuple[Path, bool]:
	"""(tree, in place): the topic branch in the check worktree, where
	make test and make qemu-hibernate build the check kernel, or with
	the mutant applied there (sharing the gauntlet's builds; its patch
	variants then get worktrees of their own)."""
	tree = session.topic(base)
	if mutant is not None:
		session.leave(cli.scratch_note(session.cache))
	wt = variants.check_worktree(tree.git, session.cache, base)
	if mutant is None:
		return wt.worktree, True
	mutants.apply(wt, mutant)
	return wt.worktree, False


@dataclasses.dataclass(frozen=True)
class JobsRequest:
	base: str
	scenarios: List[Scenario]
	out: Path		# the run's results directory
	accel: str		# the jobs' -accel: 'tcg' or 'kvm'
	artifact_url: str = ''	# where a LAVA lab finds artifacts/ ('':
				# file:// paths on this machine)
	build_jobs: int = 1	# make -j of the guest builds
	# The gauntlet's mutant to build the kernels with (None: the topic).
	mutant: Optional[mutants.Mutant] = None


def write_jobs(session: cli.Session, req: JobsRequest) -> JobSet:
	"""The guests built, copied under out/artifacts/, and one job per
	scenario under out/jobs/."""
	path, in_place = kernel_tree(session, req.base, req.mutant)
	kernels = variants.Kernels(variants.KernelsRequest(
		path, paths.CHECK_VARIANT, req.base, session.cache,
		req.build_jobs, in_place), lambda s: print(s, flush=True))
	art = req.out / 'artifacts'
	art.mkdir(parents=True, exist_ok=True)
	url = req.artifact_url.rstrip('/') or f'file://{art.resolve()}'
	job_files = {}
	for s in req.scenarios:
		for build in (s.build, s.restore):
			image = kernels.get(build)
			d = art / build.name
			d.mkdir(exist_ok=True)
			shutil.copyfile(image.bzimage, d / 'bzImage')
			shutil.copyfile(image.initramfs, d / 'initramfs.cpio')
		zero_disk_xz(art / jobs.swap_name(s), s.swap_mb)
		data = jobs.job(s, req.base, req.accel, jobs.artifacts(s, url))
		path = req.out / 'jobs' / f'{s.name}.yaml'
		path.parent.mkdir(exist_ok=True)
		path.write_text(jobs.dump(data))
		job_files[s.name] = path
	return JobSet(req.out, job_files)
