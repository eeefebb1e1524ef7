"""Stages 4 and 5, the back ends: turn the LLVM IR that lowering produced into code a machine runs.
:mod:`.ptx` optimises it for the NVPTX target and emits PTX (and, with ptxas, cubins); :mod:`.host`
lowers it with a block's threads as loops (:mod:`.host.lowering`) and emits objects per CPU target and
level; :mod:`.wgsl` renders the typed IR as WGSL. Each is a :class:`~.base.Target`."""
