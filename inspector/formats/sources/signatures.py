"""Byte signatures that tell file kinds apart (used by several readers' sniffers).

HDF5: the superblock signature ``\\x89HDF\\r\\n\\x1a\\n`` at offset 0, 512,
1024, 2048... (HDF5 file format specification, "Format Signature").  ZIP: a
local-file signature ``PK\\x03\\x04`` or an empty-archive ``PK\\x05\\x06``
(APPNOTE 4.3).
"""

from __future__ import annotations

from pathlib import Path

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")


def has_hdf5_signature(path: Path) -> bool:
    """True if the HDF5 signature is at offset 0 or a power-of-two multiple of 512."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            offset = 0
            while offset + 8 <= size:
                fh.seek(offset)
                if fh.read(8) == HDF5_SIGNATURE:
                    return True
                offset = 512 if offset == 0 else offset * 2
    except OSError:
        return False
    return False


def looks_like_zip(path: Path) -> bool:
    """True if ``path`` starts with a ZIP signature."""
    try:
        with path.open("rb") as fh:
            return fh.read(4) in ZIP_SIGNATURES
    except OSError:
        return False
