# SPDX-License-Identifier: GPL-2.0
# hibernate-lab: a thin index of targets; the work is done by tools/.
# The kernel tree and every build live under $(HIBLAB_CACHE_DIR), by default
# ~/.cache/hibernate-lab (see README.md).

LAB := ./tools/lab.py

.PHONY: help setup tree export status test kunit mutants series qemu-hibernate \
	lab-matrix clean

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## setup   install the Debian packages the project needs (apt-get, as root)
setup:
	$(LAB) setup

## tree    import the pinned base and build the topic branch (FORCE=1 to
##         rebuild over unexported work)
tree: setup
	$(LAB) tree

## export  write the topic branch's commits back into branch-overlay/
export:
	$(LAB) export

## status  show where the kernel tree stands against branch-overlay/
status:
	$(LAB) status

## test    run every check; ends with 'N passed, N failed'
test: setup
	$(LAB) test

## qemu-hibernate  the main job: one full multi-CPU hibernate/restore cycle
qemu-hibernate: setup
	./tools/qemu_hibernate.py smoke

## lab-matrix      every lab scenario
lab-matrix: setup
	./tools/qemu_hibernate.py --all

## kunit   our KUnit suites on the topic branch (./tools/kunit.py run)
kunit: setup
	./tools/kunit.py run --arch=x86_64

## mutants the mutation gauntlet: every revived bug must be caught
mutants: setup
	./tools/mutants.py

## series  the topic branch as mails: b4 prep, checkpatch, per-commit
##         builds, b4 send -o, git am round trip (never sends mail)
series: setup
	./tools/series.py

## clean   remove results/ (the cache tree and builds stay; see README)
clean:
	rm -rf results
