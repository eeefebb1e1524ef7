"""complex64 / complex128 that Python and NumPy refuse, or that the device cannot give the same
meaning: located compile errors (file:line:col of the construct, a caret, a hint), never compiler
internals. The arithmetic itself is tested in test_complex.py."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import KERNEL_PRELUDE

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

ERRORS = [
    ("v = z < w", "z < w", "complex numbers are not ordered", "abs(z)"),
    ("v = z // w", "z // w", "unsupported operand types for //", ".real"),
    ("v = z % 2", "z % 2", "unsupported operand types for %", ".real"),
    ("v = z ** n", "z ** n", "`**` of complex numbers is supported only with an integer exponent", "z ** 3"),
    ("v = w ** 0.5", "w ** 0.5", "integer exponent known at build time", "cmath.exp"),
    ("v = z ** 100", "z ** 100", "from -99 to 99", None),
    ("v = 2 ** w", "2 ** w", "integer exponent", None),
    ("v = int(z)", "int(z)", "int() of a complex number", "z.real"),
    ("v = float(w)", "float(w)", "float() of a complex number", "abs(z)"),
    ("v = f32(z)", "f32(z)", "f32() of a complex number", "z.real"),
    ("x[0] = z", "z", "cannot be stored where a f32 goes", "z.real"),
    ("v = max(z, w)", "max(z, w)", "complex numbers are not ordered", "abs(z)"),
    ("v = math.sqrt(z)", "math.sqrt(z)", "math.sqrt() needs real numbers", "cmath.sqrt"),
    ("v = gpu.atomic_add(zs, 0, z)", "zs", "does not support arrays of c64", "f32"),
    ("v = gpu.shfl_down(z, 1)", "z, 1", "gpu.shfl_down of a complex number", "z.real"),
    ("v = ~w", "~w", "bad operand type for unary ~", "integer"),
    ("v = cmath.isclose(z, z)", "cmath.isclose(z, z)", "cmath.isclose is not supported", "sqrt"),
    ("v = cmath.rect(z, 1.0)", "cmath.rect(z, 1.0)", "cmath.rect() takes two real numbers", None),
    ("v = complex(z, 1.0)", "z", "complex(real, imag) takes two real numbers", "z.real"),
    ("v = gpu.atomic_add(x, 0, z)", "z)", "gpu.atomic_add needs a real number here, not c64", None),
    ("v: f32 = z", "z", "cannot assign c64 to a variable declared f32", None),
    ("p = Pt(1.0)\np.a = w", "w", "cannot assign c128 to field `a` of type f32", None),
    ("p = Pt(z)", "z", "a complex number (c64) cannot be stored where a f32 goes", "z.real"),
    ("v = gpu.any_(z)", "z)", "gpu.any_ of a complex number", "z != 0"),
    ("z.real = 1.0", "z.real", "cannot be assigned", "complex(1.0, z.imag)"),
    ("x[0] += z", "z", "cannot be stored where a f32 goes", "z.real"),
]


@pytest.mark.parametrize("body, marked, message, hint", ERRORS, ids=[e[0] for e in ERRORS])
def test_located_errors(tmp_path: Path, body: str, marked: str, message: str, hint: str | None) -> None:
    pkg = tmp_path / "cxerr"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    head = KERNEL_PRELUDE + "import cmath\nfrom hybrid_runtime import c64, struct\n\n"
    head += "@struct\nclass Pt:\n    a: f32\n\n@kernel\n"
    head += "def k(x: Array[f32], zs: Array[c64], z: c64, w: complex, n: i32):\n"
    source = head + textwrap.indent(body, "    ") + "\n"
    (pkg / "k.py").write_text(source)
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    text = str(info.value)
    assert message in text, text
    if hint:
        assert info.value.hint and hint in info.value.hint, text
    m = re.match(r"^.+k\.py:(\d+):(\d+): error: ", text)
    assert m, text
    line = source.splitlines()[int(m[1]) - 1]
    assert line[int(m[2]) - 1 :].startswith(marked), text
    assert "Traceback" not in text and "hatch_hybrid" not in text
