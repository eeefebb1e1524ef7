import sys, tempfile, numpy as np
from pathlib import Path
from hatch_hybrid.pipeline import Options, compile_packages
from hatch_hybrid.cache import KernelCache
from hatch_hybrid.hook.artifacts import write_package_artifacts
SRC = '''
import math
from hybrid_runtime import Array, f64, gpu, kernel

@kernel
def ex(x: Array[f64], out: Array[f64], xs: Array[f64]):
    i = gpu.global_tid_x()
    xs[i] = x[i] * 0.01
    out[i] = math.exp(x[i] * 0.01)
'''
root = Path(tempfile.mkdtemp()); (root / "dg").mkdir(); (root / "dg/__init__.py").write_text(""); (root / "dg/kern.py").write_text(SRC)
ks = compile_packages([root / "dg"], options=Options(["sm_90"], cubin=False, wgsl=True, cache=KernelCache(None)))
write_package_artifacts(ks, ["sm_90"], root)
sys.path.insert(0, str(root))
import dg.kern as k
rng = np.random.default_rng(16)
n = 4096
x = rng.standard_normal(n) * np.exp2(rng.integers(-30, 20, n).astype(float))
x[:8] = [0.5, -0.5, 1.0, 2.0, 1e-310, 3.0, np.pi, -np.pi / 2]
out, xs = np.zeros(n), np.zeros(n)
k.ex.launch(256, n // 256, x, out, xs, device="wgpu")
want = np.exp(x * 0.01)
ok = np.isfinite(want) & (abs(want) > 1e-300)
ulps = np.abs(out - want) / np.spacing(np.abs(want))
ulps[~ok] = 0
for j in np.argsort(-ulps)[:5]:
    print(repr(x[j]), repr(xs[j]), repr(x[j] * 0.01), ulps[j], repr(out[j]), repr(want[j]), repr(float(np.exp(np.float64(xs[j])))))
