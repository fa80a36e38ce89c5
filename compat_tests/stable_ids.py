"""Test ids that are the same in every process (pytest-xdist workers must collect identical ids)."""

import re


def stable_id(value):
    """``str(value)`` without object addresses (a function's or lambda's names where it lives in memory)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", str(value))
