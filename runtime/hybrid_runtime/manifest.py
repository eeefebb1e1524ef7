"""The manifest a hatch-hybrid build embeds in a package: ``<package>/_hybrid/manifest.json``."""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

FORMAT = 1
DIRECTORY = "_hybrid"
FILENAME = "manifest.json"


class ManifestError(RuntimeError):
    """A kernel has no usable compiled code."""


@dataclass
class Manifest:
    directory: Path
    data: dict[str, Any]

    def kernel(self, qualname: str) -> dict[str, Any] | None:
        return self.data["kernels"].get(qualname)  # type: ignore[no-any-return]

    def best_code(self, entry: dict[str, Any], capability: tuple[int, int], kernel: str) -> tuple[str, bytes]:
        """What to load on a device of this compute capability: the cubin built for exactly it, else
        the PTX built for the newest arch it can run. Returns (file name, bytes for cuModuleLoadData)."""
        cc = capability[0] * 10 + capability[1]
        cubin = entry.get("cubin", {}).get(f"sm_{cc}") if os.environ.get("HYBRID_CODE") != "ptx" else None
        if cubin is not None:
            return cubin, (self.directory / cubin).read_bytes()
        usable = [(int(arch[3:]), arch) for arch in entry["ptx"] if int(arch[3:]) <= cc]
        if not usable:
            raise ManifestError(
                f"kernel {kernel} was compiled for {', '.join(sorted(entry['ptx']))}; "
                f"this device is sm_{cc}. Rebuild with an older arch in "
                "[tool.hatch.build.hooks.hybrid] arch"
            )
        name = entry["ptx"][max(usable)[1]]
        return name, (self.directory / name).read_bytes() + b"\0"


@cache
def package_manifest(package: str) -> Manifest | None:
    """The manifest of a top-level package, or None when it was not built by hatch-hybrid."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / DIRECTORY / FILENAME
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ManifestError(
                    f"{path} has manifest format {data.get('format')}; this hatch-hybrid-runtime "
                    f"reads format {FORMAT}. Rebuild the package or upgrade hatch-hybrid-runtime"
                )
            return Manifest(path.parent, data)
    return None
