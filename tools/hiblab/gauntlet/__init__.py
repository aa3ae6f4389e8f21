# SPDX-License-Identifier: GPL-2.0
"""The mutation gauntlet: each mutant revives a bug some check must catch."""
