# SPDX-License-Identifier: GPL-2.0
"""The pinned bases and the kernel trees built from them (see hiblab)."""
