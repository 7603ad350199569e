"""Qt item models over :class:`inspector.formats.Document` objects (no file I/O)."""
