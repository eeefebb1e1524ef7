"""Numbered sites: the places in a kernel that report to the runtime (failed checks, print calls),
kept for the manifest in order of first use, with ids from 1 (0 marks an empty slot or record)."""

from __future__ import annotations

from typing import Any

from ..errors import Loc


class SiteTable:
    """Sites (dicts for the manifest) and their ids; one id per distinct site, across a kernel's
    variants (its 32-bit-index entry point lowers the same sites again)."""

    def __init__(self) -> None:
        self.sites: list[dict[str, Any]] = []
        self._ids: dict[str, int] = {}

    def site(self, site: dict[str, Any]) -> int:
        key = repr(sorted(site.items()))
        found = self._ids.get(key)
        if found is None:
            self.sites.append(site)
            found = self._ids[key] = len(self.sites)
        return found


def located(module: str, loc: Loc, **fields: Any) -> dict[str, Any]:
    """A site for the manifest: ``fields``, then where it is (module, line, column from 1) and its
    source line, which the runtime's messages show."""
    site = {**fields, "module": module, "line": loc.line, "col": loc.col + 1}
    source = loc.source_line()
    if source:
        site["source"] = source.strip()
    return site
