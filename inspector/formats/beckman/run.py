"""A run: the scan files of a folder (or one file), read and grouped.

Scans are grouped by type, cell, channel and the seventh header field (the
wavelength; the radius for WA/WI), one experiment per group (UltraScan III
``utils/us_convert.cpp`` ``US_Convert::setCcwTriples`` and ``convert``, which
make one "triple" per cell, channel and wavelength of one run type).  Unlike
UltraScan, which merges wavelengths within a tolerance (5 nm by default) and
sorts a triple's scans by time, a group here holds the scans whose recorded
value is exactly equal, in file-number order: nothing is merged or reordered.
Groups are listed by type (RA, RI, IP, FI, WA, WI), cell, channel and that
value; the first is the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.formats.beckman import rules as R
from inspector.formats.beckman.folder import folder_entries
from inspector.formats.beckman.names import SCAN_TYPES, TYPE_ORDER, ScanName, parse_name
from inspector.formats.beckman.scanfile import ScanFile, read_scan
from inspector.formats.findings import Findings
from inspector.formats.remote.path import RemotePath
from inspector.formats.remote.transport import RemoteError

#: Scan files of one folder Inspector reads at most.
MAX_FILES = 100_000
#: Scan files of one folder URL Inspector fetches at most (one request or two each).
MAX_REMOTE_FILES = 5_000


def number_text(value: float) -> str:
    """``value`` as the shortest exact text: ``280`` for 280.0, ``280.5``, ``6.25``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


@dataclass
class Group:
    """The scans of one type, cell, channel and wavelength (radius for WA/WI).

    Attributes:
        type: the two-letter type; cell, channel: as in the file names.
        position: the seventh header field shared by the scans.
        files: the scan files, in file-number order.
    """

    type: str
    cell: int
    channel: str | None
    position: float
    files: list[ScanFile] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The group's name: type, cell, channel letter, ``-``, the value (``RA1-280``)."""
        return f"{self.type}{self.cell}{self.channel or ''}-{number_text(self.position)}"

    @property
    def radial(self) -> bool:
        """True for radial scans (RA, RI, IP, FI)."""
        return SCAN_TYPES[self.type].radial

    @property
    def ok(self) -> bool:
        """True when none of the group's files produced an error."""
        return all(f.ok for f in self.files)


@dataclass
class Run:
    """What reading a run folder (or one scan file) found.

    Attributes:
        path: the folder or file opened; folder: the folder holding the scans.
        findings: every finding, in discovery order.
        files: every scan file read, by name.
        others: names of the folder's other entries (not read).
        groups: the groups, in listing order.
        selected: the group the document offers (None when there is none).
    """

    path: Path
    folder: Path
    findings: Findings = field(default_factory=Findings)
    files: list[ScanFile] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    selected: Group | None = None

    @property
    def name(self) -> str:
        """The run's name: the folder's name (the file's name for one file)."""
        return self.path.name or str(self.path)


def _candidates(run: Run) -> list[tuple[Path, ScanName]]:
    """The scan files to read (named like scans), by name; other entries recorded."""
    path = run.path
    if path.is_dir():
        return _folder_candidates(run)
    if not path.exists():
        run.findings.report(R.NOT_FOUND, "no such file or folder", run.name)
        return []
    name = parse_name(path.name)
    if name is None:
        run.findings.report(R.NAME_NOT_SCAN, "the name is not a scan file name (channel "
                            "letter, 4 to 6 digits, a dot, the type and the cell digit)",
                            path.name)
        return []
    return [(path, name)]


def _folder_candidates(run: Run) -> list[tuple[Path, ScanName]]:
    """The scan files of the run folder (a local folder or a folder URL), by name.

    A folder URL's listing fault is its network rule (``remote.*``), naming the URL.
    """
    remote = isinstance(run.path, RemotePath)
    try:
        entries = folder_entries(run.path)
    except RemoteError as exc:
        run.findings.report(exc.rule, exc.message, "")
        return []
    except OSError as exc:
        run.findings.report(R.UNREADABLE, f"the folder cannot be listed ({exc.strerror or exc})",
                            run.name)
        return []
    found: list[tuple[Path, ScanName]] = []
    for entry in entries.items:
        name = parse_name(entry.name)
        if name is not None and entry.outside:
            run.findings.report(R.LINK_OUTSIDE, "a symbolic link to a file outside the run "
                                "folder; not read (copy the file into the folder to read it)",
                                entry.name)
        elif name is not None and entry.is_file:
            found.append((entry.path, name))
        else:
            run.others.append(entry.name)
    cap = MAX_REMOTE_FILES if remote else MAX_FILES
    where = f"the folder listing of {run.path}" if remote else "the folder"
    if not found and not entries.truncated:
        run.findings.report(R.NO_SCAN_FILES, f"{where} holds no scan file (such as "
                            "00001.RA1)", "")
    elif len(found) > cap or entries.truncated:
        counted = f"{len(found):,}" + (" or more" if entries.truncated else "")
        run.findings.report(R.TOO_MANY_FILES, f"{where} holds {counted} scan files; Inspector "
                            f"reads at most {cap:,} from one folder", "")
        return []
    return found


def _group(files: list[ScanFile]) -> list[Group]:
    """Group the files whose header parsed; groups sorted, files in number order."""
    groups: dict[tuple[str, int, str, float], Group] = {}
    for f in files:
        if f.header is None:
            continue
        n = f.name
        key = (n.type, n.cell, n.channel or "", f.header.position)
        if key not in groups:
            groups[key] = Group(n.type, n.cell, n.channel, f.header.position)
        groups[key].files.append(f)
    ordered = sorted(groups.items(), key=lambda kv: (TYPE_ORDER[kv[0][0]], *kv[0][1:]))
    for _, g in ordered:
        g.files.sort(key=lambda f: (f.name.number, f.name.name))
    return [g for _, g in ordered]


def _check_group(g: Group, findings: Findings) -> None:
    """Mixed rotor speeds and decreasing elapsed times within one group."""
    headers = [f.header for f in g.files if f.header is not None]
    speeds = sorted({h.rpm for h in headers})
    if len(speeds) > 1:
        first = next(f for f in g.files if f.header is not None
                     and f.header.rpm != headers[0].rpm)
        shown = ", ".join(number_text(s) for s in speeds[:6]) + (" ..." if len(speeds) > 6 else "")
        findings.report(R.MIXED_SPEEDS, f"group {g.key}: {len(speeds)} rotor speeds ({shown} "
                        "rpm)", f"{first.name.name}:2")
    for prev, cur in zip(g.files, g.files[1:], strict=False):
        if prev.header and cur.header and cur.header.seconds < prev.header.seconds:
            findings.report(R.TIME_NOT_INCREASING, f"group {g.key}: elapsed time "
                            f"{number_text(cur.header.seconds)} s after "
                            f"{number_text(prev.header.seconds)} s in {prev.name.name}",
                            f"{cur.name.name}:2")
            break


def _select(run: Run, group: str | None) -> None:
    """Choose the offered group: ``group`` by key, or the first one."""
    if group is None:
        run.selected = run.groups[0] if run.groups else None
        return
    run.selected = next((g for g in run.groups if g.key == group), None)
    if run.selected is None:
        keys = [g.key for g in run.groups]
        listed = ", ".join(keys[:20]) + (f" and {len(keys) - 20} more" if len(keys) > 20 else "")
        run.findings.report(R.GROUP_NOT_FOUND, f"no group {group[:80]!r} in this run; its "
                            f"groups are: {listed or '(none)'}", "")


def read_run(path: Path, group: str | None = None) -> Run:
    """Read every scan file of the folder ``path`` (or the one scan file ``path``).

    Args:
        path: a run folder, or one scan file.
        group: the key of the group to offer (``"RA1-280"``); None for the first.

    Returns:
        The :class:`Run`; never raises for bad input (everything is a finding).
    """
    folder = path if path.is_dir() else path.parent
    run = Run(path, folder)
    for file_path, name in _candidates(run):
        run.files.append(read_scan(file_path, name, run.findings))
    run.groups = _group(run.files)
    for g in run.groups:
        _check_group(g, run.findings)
    _select(run, group)
    if run.selected is not None and not run.selected.radial:
        run.findings.report(R.WAVELENGTH_SCANS, f"group {run.selected.key} holds wavelength "
                            "scans; it is shown but not offered for AUCX export", "")
    return run
