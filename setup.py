"""The package list, which pyproject.toml cannot state: every ``inspector*`` package
is discovered (a new format package needs no edit here), and ``inspector.resources``
is the top-level ``resources/`` folder (mapped and its files listed in pyproject.toml).
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["inspector*"]), "inspector.resources"])
