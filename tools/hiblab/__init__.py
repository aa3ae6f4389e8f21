# SPDX-License-Identifier: GPL-2.0
"""hibernate-lab's host code, one subpackage per area a change lives in.

  base/      the pinned bases: linux-base.txt (pins), a base fetched from
             another Debian suite (fetch), branch-overlay/ <-> topic branch
             (overlay), the kernel tree the tools ask for (kernel_tree)
  kernel/    kernels built from a tree: the lab's guest (guest), build
             variants (variants), KUnit through kunit_tool (kunit), objdump
             checks of a vmlinux (static), System.map lookups (symbols)
  lab/       hibernate/restore cycles: scenarios as data (scenarios), QEMU
             (qemu), its gdbstub (gdb), the swap disk (swap), the agent's
             line protocol (protocol); running a cycle (cycle) apart from
             its record (records) and its judges (judge, positions); a run
             of scenarios (runner) and its HTML page (report, browser)
  series/    the topic branch as mails: one module per stage of make series
  gauntlet/  mutants and the registry of check names they may name
  lava/      the scenarios as LAVA jobs, their logs judged, lava-run here

The modules at this level are what the areas share: errors (the one
exception a user sees), paths, git, lock (one run per cache), verdict,
packages (make setup), cli (how every entry point ends) and testing (the
host tests' fake base).  checks/ is `make test`, the one part that uses
every area.  Imports run one way only, down these layers, never in a
circle (a unit test holds the code to it):

  checks
  lava
  gauntlet
  lab, series
  kernel, packages, cli, testing
  base
  paths, git, lock, verdict
  errors

The entry points stay thin CLIs in tools/: lab.py, kunit.py,
qemu_hibernate.py, mutants.py, series.py, lava.py, report_check.py.
Tests sit beside what they test (X_test.py, as kunit_tool keeps
kunit_tool_test.py beside its modules); captured real runs in the area's
test_data/.  Run them all with
`python3 -m unittest discover -s tools -p '*_test.py'`.
"""
