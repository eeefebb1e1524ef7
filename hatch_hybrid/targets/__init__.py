"""Stages 4 and 5, the back ends: turn the LLVM IR that lowering produced into code a machine runs.
:mod:`.ptx` optimises it for the NVPTX target and emits PTX (and, with ptxas, cubins); :mod:`.host`
is the native CPU back end (to come). In: LLVM IR text. Out: PTX text and machine code per GPU architecture."""
