"""Installed as ``inspector.resources``: the icons and the sample files (see pyproject.toml)."""
