"""Stages 0 and 1, the front end: finds the ``@kernel`` functions of a package and the modules they reach
(:mod:`.discover`, which reads sources with :mod:`ast` and never imports them) and turns a function's
Python syntax tree into the compiler's untyped IR (:mod:`.parse`). In: package folders and source
files. Out: a :class:`~.discover.ModuleIndex` of symbols and :class:`~hatch_hybrid.ir.Function` trees."""
