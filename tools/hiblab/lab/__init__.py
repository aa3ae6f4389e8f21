# SPDX-License-Identifier: GPL-2.0
"""Hibernate -> power-off -> boot -> restore cycles in QEMU: run, recorded,
judged and reported."""
