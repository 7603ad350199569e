"""The files of a folder at a URL: an ``s3://bucket/prefix/`` or ``http(s)://host/dir/``.

A folder URL ends with ``/``.  Its file names come from one listing: S3
``ListObjectsV2`` under the prefix (with the delimiter ``/``, so sub-folders
are left out), or the directory index page an HTTP server gives for the
folder (Python's ``http.server``, Apache, nginx...): every link of the page
that names a file directly in that folder.  At most :data:`MAX_ENTRIES`
names are listed and an index page is read up to :data:`MAX_INDEX_BYTES`;
faults are :class:`~.remote_transport.RemoteError` naming the URL.  Readers
of folders fetch the files they need as :class:`~.remote_path.RemotePath`
objects (docs/architecture.md, "Remote sources").  Nothing here imports Qt.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

from inspector.formats.remote.options import RemoteOptions
from inspector.formats.remote.path import RemotePath
from inspector.formats.remote.transport import HttpTransport, S3Transport

#: Names listed from one folder at most (a listing of more says it was cut).
MAX_ENTRIES = 20_000
#: Bytes of an HTTP directory index page read at most.
MAX_INDEX_BYTES = 8 << 20


@dataclass(frozen=True)
class Listing:
    """The file names of one folder URL.

    Attributes:
        files: the folder's files, as :class:`RemotePath` objects in name order.
        truncated: True when the folder holds more than :data:`MAX_ENTRIES` names.
    """

    files: tuple[RemotePath, ...]
    truncated: bool = False


def list_folder(folder: RemotePath) -> Listing:
    """The files directly in the folder URL ``folder``.

    Raises:
        RemoteError: the listing cannot be had (not found, refused, timeout,
            an index page larger than :data:`MAX_INDEX_BYTES`...).
    """
    options = folder.options or RemoteOptions.from_environment()
    if folder.scheme == "s3":
        names, truncated = S3Transport(folder.url, options).list_names(MAX_ENTRIES)
    else:
        page = HttpTransport(folder.url, options).get_page(MAX_INDEX_BYTES)
        names = index_names(page.decode("utf-8", "replace"), folder.url)
        truncated = len(names) > MAX_ENTRIES
        names = names[:MAX_ENTRIES]
    return Listing(tuple(folder / name for name in sorted(set(names))), truncated)


class _Links(HTMLParser):
    """Collects the ``href`` of every ``<a>`` of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() == "a":
            self.hrefs.extend(v for k, v in attrs if k.lower() == "href" and v)


def index_names(page: str, folder_url: str) -> list[str]:
    """The names of the files a directory index page links to in ``folder_url`` itself.

    A link counts when, resolved against the folder's URL, it names an
    object in that same folder on the same server (not a sub-folder, the
    parent, a sort order ``?C=N`` or another site), in page order.
    """
    parser = _Links()
    parser.feed(page)
    base = urlsplit(folder_url)
    names: list[str] = []
    for href in parser.hrefs:
        target = urlsplit(urljoin(folder_url, href))
        if (target.scheme, target.netloc) != (base.scheme, base.netloc) or target.query:
            continue
        head, name = posixpath.split(target.path)
        if head.rstrip("/") == base.path.rstrip("/") and name:
            names.append(unquote(name))
    return list(dict.fromkeys(names))
