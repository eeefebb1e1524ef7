"""Stage 2, type inference: gives every expression of the IR a type, one specialisation per
(function, argument types) pair reachable from the kernels, before any code is generated
(:mod:`.program` drives it, :mod:`.function` checks one function, :mod:`.rules` holds the operator
rules). In: the front end's module index and IR. Out: :class:`~.typed.TypedFunction` objects (IR plus
the types of its nodes and locals and the resolved callees)."""
