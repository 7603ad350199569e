"""Entry script of the PyInstaller bundle: the same as the ``inspector`` command."""

import sys

from inspector.cli import main

if __name__ == "__main__":
    sys.exit(main())
