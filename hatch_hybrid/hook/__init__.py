"""The hatchling build hook: registers ``hybrid`` with hatchling (:mod:`.register`), reads the hook's
options and drives a build (:mod:`.plugin`), writes the compiled kernels and their manifest into the
wheel (:mod:`.artifacts`) and recompiles an editable install in place (:mod:`.editable`). In: the
project's configuration and package folders. Out: ``_hybrid/`` folders (PTX, cubins, the native CPU
libraries, WGSL, manifest.json) in the wheel or the source tree."""
