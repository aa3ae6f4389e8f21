# SPDX-License-Identifier: GPL-2.0
# hibernate-lab: a thin index of targets; the work is done by tools/.
# The kernel tree and every build live under $(HIBLAB_CACHE_DIR), by default
# ~/.cache/hibernate-lab (see README.md).

LAB := ./tools/lab.py
# BASE=<name> picks a base of linux-base.txt (6.12, 7.3); default: the first.
BASE_OPT := $(if $(BASE),--base $(BASE))

.PHONY: help setup tree export status test test-all kunit mutants series \
	qemu-hibernate lab-matrix report-check lava-jobs lava-local clean

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## setup   install the Debian packages the project needs (apt-get, as root)
##         and fetch the bases from other suites into the cache
setup:
	$(LAB) setup $(BASE_OPT)

## tree    import the pinned base and build the topic branch (FORCE=1 to
##         rebuild over unexported work)
tree: setup
	$(LAB) tree $(BASE_OPT)

## export  write the topic branch's commits back into branch-overlay/
export:
	$(LAB) export $(BASE_OPT)

## status  show where the kernel tree stands against branch-overlay/
status:
	$(LAB) status $(BASE_OPT)

## test    run every check on every base (BASE= for one) within CI's
##         budget; ends with 'N passed, N failed'
test: setup
	$(LAB) test $(BASE_OPT)

## test-all  make test plus what it leaves out for CI time (README)
test-all: setup
	$(LAB) test --all $(BASE_OPT)

## qemu-hibernate  the main job: one full multi-CPU hibernate/restore cycle
qemu-hibernate: setup
	./tools/qemu_hibernate.py $(BASE_OPT) smoke

## lab-matrix      every lab scenario
lab-matrix: setup
	./tools/qemu_hibernate.py $(BASE_OPT) --all

## report-check    the newest lab run's report.html in headless Chromium
##                 (RUN=results/lab-... for another; installs the optional
##                 tools/report-packages.txt)
report-check:
	./tools/report_check.py $(RUN)

## lava-jobs  every scenario as a LAVA job, with its artifacts, validated
##            offline (ARTIFACT_URL=... for a real lab; see README)
lava-jobs: setup
	./tools/lava.py jobs $(BASE_OPT) $(if $(ARTIFACT_URL),--artifact-url $(ARTIFACT_URL))

## lava-local  smoke and corrupt-header through LAVA's own dispatcher
##             (installs the optional tools/lava-packages.txt)
lava-local: setup
	./tools/lava.py local $(BASE_OPT)

## kunit   our KUnit suites on the topic branch (./tools/kunit.py run)
kunit: setup
	./tools/kunit.py $(BASE_OPT) run --arch=x86_64

## mutants the mutation gauntlet: every revived bug must be caught
mutants: setup
	./tools/mutants.py $(BASE_OPT)

## series  every series of the base as mails (SERIES=<name> for one), each
##         on its own stack: git am on the base and its prerequisites,
##         b4 prep, checkpatch, per-commit builds, its KUnit suites,
##         b4 send -o, git am round trip (never sends mail)
series: setup
	./tools/series.py $(BASE_OPT) $(if $(SERIES),--series $(SERIES))

## clean   remove results/ (the cache tree and builds stay; see README)
clean:
	rm -rf results
