# SPDX-License-Identifier: GPL-2.0
"""The lab's scenarios as LAVA jobs (jobs, jobset), their logs back into
lab records (logs), and lava-run on this machine (local)."""
