"""Registers the ``hybrid`` build hook with hatchling (entry point group ``hatch``)."""

from __future__ import annotations

from hatchling.plugin import hookimpl

from .plugin import HybridBuildHook


@hookimpl
def hatch_register_build_hook() -> type[HybridBuildHook]:
    return HybridBuildHook
