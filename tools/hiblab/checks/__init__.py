# SPDX-License-Identifier: GPL-2.0
"""`make test`: every check of the project, one verdict line each.

run (the order, what make test leaves out, the run), room (the disk's room,
checked before anything else), context (what a check gets), basic (no
kernel build), kernels (the topic's kernels), series_check (make series
rehearsed).

The host unit tests run once; every other check runs once per base
(linux-base.txt), its verdicts named `<base>/<check>...`.  A check is a
function taking the run's context and returning a Verdict (or raising
LabError, which is its FAIL detail).  Details go to files under
results/<run>/<base>/; the terminal gets one line per check and the closing
'N passed, N failed' line.
"""

from hiblab.checks.context import TestRequest
from hiblab.checks.run import BASE_CHECKS, CI_SKIP, HOST_CHECKS, run_all

__all__ = ['BASE_CHECKS', 'CI_SKIP', 'HOST_CHECKS', 'TestRequest', 'run_all']
