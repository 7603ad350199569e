"""``python -m fuzz``: see :func:`fuzz.cli.main`."""

from fuzz.cli import main

raise SystemExit(main())
