# SPDX-License-Identifier: GPL-2.0
"""Kernels built from a tree: guest, variants, KUnit, static checks."""
