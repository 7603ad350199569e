"""Entry script of the PyInstaller bundle: the same as the ``inspector`` command."""

import multiprocessing
import sys

from inspector.cli import main

if __name__ == "__main__":
    # `inspector verify` of many files starts worker processes (inspector/batch/local.py);
    # in a frozen bundle they re-enter this script, which must hand them to multiprocessing.
    multiprocessing.freeze_support()
    sys.exit(main())
