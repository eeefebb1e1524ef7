"""``python -m hybrid_runtime [PACKAGE ...]``: where kernels run (see :mod:`.where`)."""

from .where import main

raise SystemExit(main())
