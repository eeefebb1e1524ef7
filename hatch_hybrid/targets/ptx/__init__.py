"""The NVIDIA back end: links libdevice when math functions need it and runs LLVM's O3 pipeline for
the NVPTX target (:mod:`.optimize`), writes PTX (:mod:`.emit`) and assembles it to cubins with ptxas
when one is available (:mod:`.cubin`). In: an LLVM IR module and target archs. Out: PTX text and
cubin bytes per arch."""
