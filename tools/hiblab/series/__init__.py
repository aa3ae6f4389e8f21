# SPDX-License-Identifier: GPL-2.0
"""The topic branch as a mail series (make series), one module per stage:
identity, checkpatch, builds, b4, mails, roundtrip; series runs them."""
