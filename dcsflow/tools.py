"""External tools (placeholder until the tool locator lands): ``find_tool(name)`` on PATH."""

from __future__ import annotations

import shutil


class ToolMissing(Exception):
    """An external tool is not installed."""

    user_error = True


def find_tool(name: str) -> str:
    """Path of executable ``name``. Raises ToolMissing."""
    p = shutil.which(name)
    if not p:
        raise ToolMissing(f"{name} not found on PATH")
    return p
