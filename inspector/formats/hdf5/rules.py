"""Every rule about an HDF5 file as such, declared once: any HDF5 file can break these.

Its superblock, objects, links, text and stored values: the generic HDF5
reader (:mod:`inspector.formats.hdf5`) reports them for any file, and the
formats built on HDF5 (a VneuroTK recording) report them beside their own
rules.  Sources: the HDF5 file format specification, the HDF5 library
reference (external storage, virtual datasets), Inspector's safety contract
(docs/architecture.md, "Contracts") and the reading discipline of the
VneuroTK reader notes (``spec/vneurotk-recording.md`` §6), which any HDF5
file is read by.  Codes and severities are stable: tests and corpus verdicts
depend on them.
"""

from __future__ import annotations

from inspector.formats.core_rules import FILE_UNREADABLE as FILE_UNREADABLE
from inspector.formats.findings import Rule, Severity, rule

__all__ = [
    "CONTRACT",
    "DATA_CHUNK_OVERFLOW",
    "DATA_FILTER_UNAVAILABLE",
    "DATA_READ_TIMEOUT",
    "DATA_UNREADABLE",
    "DATA_UNSUPPORTED_TYPE",
    "DATA_VALUE_TOO_LARGE",
    "EXTERNAL_MISSING",
    "EXTERNAL_OUTSIDE",
    "EXTERNAL_REMOTE",
    "EXTERNAL_SELF",
    "EXTERNAL_SPECIAL",
    "EXTERNAL_STORAGE",
    "FILE_CORRUPT",
    "FILE_LOCKED",
    "FILE_LOCK_BYPASSED",
    "FILE_NOT_HDF5",
    "FILE_TRUNCATED",
    "H5P_EXTERNAL",
    "H5P_VIRTUAL",
    "HDF5_FILE_RULES",
    "HDF5_SPEC",
    "LINK_DANGLING",
    "LINK_EXTERNAL",
    "LINK_EXTERNAL_UNRESOLVED",
    "LINK_EXTERNAL_URL",
    "READ_FAILED",
    "TEXT_INVALID_UTF8",
    "TREE_ATTRIBUTES_CAPPED",
    "TREE_ATTRIBUTES_UNREADABLE",
    "TREE_ATTRIBUTE_UNREADABLE",
    "TREE_GLOBAL_HEAP_CORRUPT",
    "TREE_GROUP_UNREADABLE",
    "TREE_LINK_UNREADABLE",
    "TREE_MEMBERS_CAPPED",
    "TREE_OBJECT_UNREADABLE",
    "TREE_UNSUPPORTED_TYPE",
    "VDS_EXTERNAL",
    "VDS_INTERNAL",
    "VDS_MISSING_SOURCE",
    "VDS_RECURSIVE",
    "VDS_TOO_MANY_MAPPINGS",
    "VDS_UNREADABLE",
]

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def notes(section: str) -> str:
    """The source string of a section of the VneuroTK reader notes (its reading discipline)."""
    return f"VneuroTK recording notes (spec/vneurotk-recording.md) {section}"

HDF5_SPEC = "HDF5 File Format Specification 3.0"
#: Shared with the reader registry (an identical declaration; ``rule`` checks they agree).

# -- the file as a whole ---------------------------------------------------------------
FILE_NOT_HDF5 = rule(
    "file.not-hdf5", ERROR,
    "The file has no HDF5 superblock signature, so it is not an HDF5 file.",
    f"{HDF5_SPEC}, 'Superblock' (format signature)")
FILE_TRUNCATED = rule(
    "file.truncated", ERROR,
    "The superblock records an end of file beyond the bytes the file holds.",
    f"{HDF5_SPEC}, 'Superblock' (end of file address)")
FILE_LOCKED = rule(
    "file.locked", ERROR,
    "Another process holds the file's HDF5 lock and it cannot be opened even without locking.",
    notes("§6"))
FILE_LOCK_BYPASSED = rule(
    "file.lock-bypassed", WARNING,
    "Another process holds the file's HDF5 lock; it was opened without locking, so its "
    "contents may change while shown.", notes("§6"))
FILE_CORRUPT = rule(
    "file.corrupt", ERROR,
    "HDF5 cannot read part of the file's structure (a damaged file).", HDF5_SPEC)
READ_FAILED = rule(
    "read.failed", ERROR,
    "Stored values could not be decoded into the types the format describes.", notes("§6"))
TEXT_INVALID_UTF8 = rule(
    "text.invalid-utf8", WARNING,
    "Text must be UTF-8; invalid bytes are shown as escapes.", notes("§1"))

# -- raw object tree, links, virtual datasets -----------------------------------------
TREE_ATTRIBUTES_UNREADABLE = rule(
    "tree.attributes-unreadable", WARNING,
    "The attributes of an object cannot be listed.", HDF5_SPEC)
TREE_ATTRIBUTE_UNREADABLE = rule(
    "tree.attribute-unreadable", WARNING, "An attribute's value cannot be read.", HDF5_SPEC)
TREE_GLOBAL_HEAP_CORRUPT = rule(
    "tree.global-heap-corrupt", ERROR,
    "A variable-length attribute points into a global heap collection whose objects cannot "
    "be walked (a free-space object of size 0, or an object running past the collection's "
    "end), so its value is not read.", f"{HDF5_SPEC}, III.E 'Global Heap'")
TREE_ATTRIBUTES_CAPPED = rule(
    "tree.attributes-capped", WARNING,
    "An object has more attributes than are listed; the rest are left out.", notes("§6"))
TREE_UNSUPPORTED_TYPE = rule(
    "tree.unsupported-type", WARNING,
    "A dataset's datatype has no numpy equivalent (e.g. a float wider than numpy's), so "
    "its values cannot be shown.", f"{HDF5_SPEC}, 'Datatype Message'")
TREE_GROUP_UNREADABLE = rule(
    "tree.group-unreadable", ERROR, "A group's members cannot be listed.", HDF5_SPEC)
TREE_LINK_UNREADABLE = rule(
    "tree.link-unreadable", ERROR, "A link cannot be read.", f"{HDF5_SPEC}, 'Link Info'")
TREE_OBJECT_UNREADABLE = rule(
    "tree.object-unreadable", ERROR, "A linked object cannot be opened.", HDF5_SPEC)
TREE_MEMBERS_CAPPED = rule(
    "tree.members-capped", WARNING,
    "The file has more objects than are listed; the rest are left out.", notes("§6"))
LINK_DANGLING = rule(
    "link.dangling", ERROR, "A soft or external link points at nothing.",
    f"{HDF5_SPEC}, 'Link Info'")
LINK_EXTERNAL_UNRESOLVED = rule(
    "link.external-unresolved", WARNING,
    "An external link of a plain HDF5 file leads to a file or object that cannot be found "
    "(the other file is not beside it): the link is listed, not followed, and the rest of "
    "the file is read.  In a VneuroTK recording the same link is link.dangling, an error.",
    f"{HDF5_SPEC}, 'Link Info'; HDF5 library reference, H5Lcreate_external")
LINK_EXTERNAL = rule(
    "link.external", WARNING,
    "An external link is followed read-only; its data live in another file.", notes("§6"))
LINK_EXTERNAL_URL = rule(
    "link.external-url", WARNING,
    "An external link of a file read from a URL is not followed; its relative file name "
    "names the file beside it on the same server or bucket, which opens as a document of "
    "its own.",
    f"{notes('§6')}; HDF5 library, H5Lcreate_external (a relative name is looked up from "
    "the linking file's folder)")
VDS_UNREADABLE = rule(
    "vds.unreadable", ERROR, "A virtual dataset's mapping cannot be read.", notes("§6"))
VDS_INTERNAL = rule(
    "vds.internal", INFO, "A virtual dataset maps other datasets of the same file.",
    notes("§6"))
VDS_MISSING_SOURCE = rule(
    "vds.missing-source", ERROR,
    "A virtual dataset's source file must exist (HDF5 would return fill values).", notes("§6"))
VDS_EXTERNAL = rule(
    "vds.external", WARNING,
    "A virtual dataset reading another file is followed read-only.", notes("§6"))
H5P_EXTERNAL = ("HDF5 library reference, H5Pset_external (raw data in external files, "
                "opened by name when the dataset is read)")
H5P_VIRTUAL = ("HDF5 library reference, H5Pset_virtual and 'Virtual Dataset (VDS)' (source "
               "files looked up as H5Pset_virtual_prefix describes)")
CONTRACT = "Inspector's safety contract (docs/architecture.md, 'Contracts': external data)"
VDS_RECURSIVE = rule(
    "vds.recursive", ERROR,
    "A virtual dataset must not reach itself through its sources (directly or through other "
    "virtual datasets): HDF5 would recurse until the process crashes. Its values are not "
    "read.", f"{H5P_VIRTUAL}; {CONTRACT}")
VDS_TOO_MANY_MAPPINGS = rule(
    "vds.too-many-mappings", ERROR,
    "A virtual dataset of more than 16 384 mappings is not opened: HDF5 decodes every "
    "mapping into memory (twice) when it opens one, so its count is read from the file's "
    "bytes first and the dataset and its values are not shown.",
    f"{HDF5_SPEC}, IV.A.2.i 'Data Layout Message' (version 4, virtual storage) and III.E "
    f"'Global Heap'; {CONTRACT}")
EXTERNAL_STORAGE = rule(
    "external.storage", INFO,
    "A dataset's raw data are stored in other files (external storage) inside the "
    "document's folder; its values are read from there.", H5P_EXTERNAL)
EXTERNAL_OUTSIDE = rule(
    "external.outside", WARNING,
    "A dataset's values come from a file outside the document's folder (external storage, a "
    "virtual-dataset source or an external link); they are not read until that folder is "
    "allowed (--allow-external DIR, or the window's action on this finding).",
    f"{H5P_EXTERNAL}; {CONTRACT}")
EXTERNAL_SPECIAL = rule(
    "external.special-file", ERROR,
    "A dataset's values would come from a named pipe, socket, device or folder (reading one "
    "blocks or never ends); never read.", f"{H5P_EXTERNAL}; {CONTRACT}")
EXTERNAL_MISSING = rule(
    "external.missing", ERROR,
    "An external-storage file of a dataset does not exist; its values cannot be read.",
    H5P_EXTERNAL)
EXTERNAL_SELF = rule(
    "external.self", ERROR,
    "A dataset's external storage names the document itself (its values would be the "
    "file's own bytes); not read.", f"{H5P_EXTERNAL}; {CONTRACT}")
EXTERNAL_REMOTE = rule(
    "external.remote", WARNING,
    "A file read from a URL has a dataset with external storage; HDF5 would read those "
    "files from this machine, so its values are never read.", f"{H5P_EXTERNAL}; {CONTRACT}")

# -- stored values of any dataset or attribute (NodeData) --------------------------------
DATA_UNREADABLE = rule(
    "data.unreadable", ERROR,
    "HDF5 could not read the stored values of a dataset or attribute: a damaged chunk, a "
    "missing external or virtual source file, or a filter this HDF5 library lacks.",
    f"{HDF5_SPEC}, 'Data Storage' and 'Filter Pipeline Message'")
DATA_UNSUPPORTED_TYPE = rule(
    "data.unsupported-type", ERROR,
    "The stored element type has no numpy equivalent, so its values cannot be decoded.",
    f"{HDF5_SPEC}, 'Datatype Message'")
DATA_VALUE_TOO_LARGE = rule(
    "data.value-too-large", WARNING,
    "A variable-length value (a string or sequence) declares more bytes than one value "
    "read at open or shown (1 MiB), or the values of one read more than 16 MiB in all: "
    "sized from their stored descriptors, they are not read; `inspector dump FILE::/path "
    "--all --out FILE` writes a dataset's values in pages.  A fixed-size element (string, "
    "opaque, compound, array type) over 1 MiB is sized from its type and never read "
    "(h5dump or h5py read it); so is an attribute declaring over 1 MiB in all (HDF5 reads "
    "an attribute whole: `h5dump -a` or h5py read it).",
    f"{HDF5_SPEC}, III.E 'Global Heap'; {notes('§6')}")
DATA_READ_TIMEOUT = rule(
    "data.read-timeout", ERROR,
    "Reading values from another file (external storage or a virtual dataset's source) did "
    "not end within the time limit because that file became a named pipe, a device or a "
    "socket after it was checked: the read was stopped (the pipe released, the reading "
    "thread interrupted) and its values are not shown.",
    f"{H5P_EXTERNAL}; {CONTRACT}")
DATA_CHUNK_OVERFLOW = rule(
    "data.chunk-overflow", ERROR,
    "A compressed chunk inflates to more bytes than the chunk's declared size (its shape "
    "times the element size): a damaged or hostile chunk.  Inflation stops at the declared "
    "size, and the dataset's values are not shown.",
    f"{HDF5_SPEC}, 'Data Storage - Chunked' and 'Filter Pipeline Message' (deflate)")

DATA_FILTER_UNAVAILABLE = rule(
    "data.filter-unavailable", WARNING,
    "A dataset is written through an HDF5 filter that is not installed here (a plugin such "
    "as blosc, lz4, zstd or bitshuffle): its layout and attributes are listed, but its "
    "values cannot be read until the filter is installed.",
    f"{HDF5_SPEC}, 'Filter Pipeline Message'; HDF Group, 'Registered Filter Plugins'")

#: Every rule above: what any HDF5 file can break (its superblock, objects, links, text
#: and stored values).  A format built on HDF5 declares the others: for an HDF5 file that
#: is not of that format at all they only say that it is not one (``Document.mismatch``).
HDF5_FILE_RULES: tuple[Rule, ...] = (
    FILE_NOT_HDF5, FILE_TRUNCATED, FILE_LOCKED, FILE_LOCK_BYPASSED, FILE_CORRUPT,
    TEXT_INVALID_UTF8, TREE_ATTRIBUTES_UNREADABLE, TREE_ATTRIBUTE_UNREADABLE,
    TREE_ATTRIBUTES_CAPPED, TREE_UNSUPPORTED_TYPE, TREE_GROUP_UNREADABLE, TREE_LINK_UNREADABLE,
    TREE_OBJECT_UNREADABLE, TREE_MEMBERS_CAPPED, LINK_DANGLING, LINK_EXTERNAL, LINK_EXTERNAL_URL,
    LINK_EXTERNAL_UNRESOLVED,
    VDS_UNREADABLE, VDS_INTERNAL, VDS_MISSING_SOURCE, VDS_EXTERNAL, VDS_RECURSIVE,
    VDS_TOO_MANY_MAPPINGS, EXTERNAL_STORAGE, EXTERNAL_OUTSIDE, EXTERNAL_SPECIAL,
    EXTERNAL_MISSING, EXTERNAL_SELF, EXTERNAL_REMOTE, DATA_UNREADABLE, DATA_UNSUPPORTED_TYPE,
    DATA_VALUE_TOO_LARGE, DATA_CHUNK_OVERFLOW, DATA_READ_TIMEOUT, DATA_FILTER_UNAVAILABLE,
)
