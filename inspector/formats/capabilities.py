"""What a document offers, as typed optional capabilities.

The UI chooses its views by which of these a :class:`~.document.Document`
has, never by its format name (docs/architecture.md, "Seams"):

* :class:`TrialStructure`: trials and stimulus-onset markers of a recording.
* :class:`StimulusFeatures`: an array of one row per stimulus (features of
  a visual representation), with no time axis.
* :class:`AucScans`: an AUC experiment (scans against radius).
* :class:`ChecksumTable`: an archive's member digests and their statuses.
* :class:`ExperimentExport`: the document's AUC experiment can be exported.
* :class:`ObjectData`: the values of any dataset or attribute of the object
  tree, decoded lazily (:class:`~inspector.formats.nodes.data.NodeData`).
* :class:`FormatMismatch`: the file is a readable container of another kind
  than the format its findings check (a plain HDF5 file opened by the
  recording reader).

Deferred work (streaming verification of an archive, a recording's
``verify()``) is a :class:`DeferredCheck`: it runs on a worker thread, emits
immutable :class:`Progress` events and returns an immutable
:class:`CheckResult`, which the thread that owns the document applies with
``Document.apply``.  Nothing here mutates a document.

Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from inspector.formats.findings import Finding

if TYPE_CHECKING:  # annotations only: importing a document type never imports numpy
    import numpy as np

    from inspector.formats.analysis.arrays import ArrayRef
    from inspector.formats.analysis.scan_envelope import ScanOverview
    from inspector.formats.auc.model import AucExperiment
    from inspector.formats.auc.structure import AucStructure
    from inspector.formats.nodes.data import NodeData
    from inspector.formats.nodes.node import Node
    from inspector.formats.table import Table


class MemberStatus(StrEnum):
    """Status of one row of an archive's checksum table (AUCX format, "Checksums")."""

    PENDING = "pending"
    OK = "ok"
    MISMATCH = "mismatch"
    MISSING_MEMBER = "missing-member"
    UNLISTED = "unlisted"
    MALFORMED_ENTRY = "malformed-entry"
    DUPLICATE_ENTRY = "duplicate-entry"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    """The member failed a ZIP safety check and was never decompressed."""


#: Member statuses, in the order of :class:`MemberStatus`.
MEMBER_STATUSES: tuple[MemberStatus, ...] = tuple(MemberStatus)


@dataclass(frozen=True)
class MemberCheck:
    """One row of an archive's checksum table.

    Attributes:
        name: the member name.
        recorded: the lowercase hex SHA-256 in ``checksums.sha256`` (None if unlisted).
        computed: the streamed SHA-256 of the member (None until hashed, or missing).
        status: see :class:`MemberStatus`.
    """

    name: str
    recorded: str | None
    computed: str | None = None
    status: MemberStatus = MemberStatus.PENDING

    def to_json(self) -> dict[str, Any]:
        """The ``verify --json`` form: name, recorded, computed, status."""
        return {"name": self.name, "recorded": self.recorded,
                "computed": self.computed, "status": str(self.status)}


@dataclass(frozen=True)
class ChecksumTable:
    """An archive's checksum table.

    Attributes:
        members: one row per member, in archive order.
        verified: True once every member was streamed through SHA-256; until
            then nothing is reported verified (AUCX format, "Checksums").
    """

    members: tuple[MemberCheck, ...]
    verified: bool = False


@dataclass(frozen=True)
class TrialStructure:
    """The trials of a recording, in samples of the neural array's time axis.

    Attributes:
        data_mode: ``"continuous"`` (one time axis, the trials marked on it),
            ``"epochs"`` (one row of samples per trial) or ``"patterns"`` (one
            row per trial, no time axis).
        trial_starts, trial_ends: int64 ``(trials,)`` sample positions, or None.
        vision_onsets: int64 ``(trials,)`` stimulus-onset samples, or None.
        trial_stim_ids: the stimulus ID of each trial (typed), or None.
        stim_ids_pending: True while ``trial_stim_ids`` is still to come from
            a deferred check (one that finds them after opening, as a scan of
            per-sample labels at each onset); the check's result carries the
            structure with them.
        stim_labels: the per-sample stimulus labels, or None: a lazy object
            with ``shape``, ``dtype``, ``count`` and ``read(selection)``
            returning an object or numeric array (missing labels are NaN,
            None, ``pandas.NA`` or ``pandas.NaT``).
        sampling_rate_hz: samples per second when the file states it.
        time_unit: the unit of one sample step when known (``"ms"``), else ``""``.
        trial: the per-sample trial array (lazy, continuous ``(time,)``,
            epochs ``(trials, time)``), or None.
        trial_window: int64 ``(2,)`` or ``(trials, 2)``: the ``[start, stop)``
            sample offsets of each trial relative to its onset (``[-16, 48]``:
            16 samples before the onset to 47 after), or None when the file
            gives none.
        baseline: int64 ``(2,)`` or ``(trials, 2)``: the ``[start, stop)``
            sample offsets of each trial's baseline relative to its onset, or
            None.
        neural: the array the trials cut (its time axis is the one the
            markers and sample offsets count in), or None.
        table: the table of one row per trial (its columns name conditions),
            or None.
    """

    data_mode: str
    trial_starts: np.ndarray | None = None
    trial_ends: np.ndarray | None = None
    vision_onsets: np.ndarray | None = None
    trial_stim_ids: tuple[Any, ...] | None = None
    stim_labels: Any = None
    sampling_rate_hz: float | None = None
    time_unit: str = ""
    trial: ArrayRef | None = None
    trial_window: np.ndarray | None = None
    baseline: np.ndarray | None = None
    stim_ids_pending: bool = False
    neural: ArrayRef | None = field(default=None, compare=False, repr=False)
    table: Table | None = field(default=None, compare=False, repr=False)

    def markers(self) -> dict[str, np.ndarray]:
        """The marker arrays that are present, by name (``trial_starts``...)."""
        named = {"trial_starts": self.trial_starts, "trial_ends": self.trial_ends,
                 "vision_onsets": self.vision_onsets}
        return {k: v for k, v in named.items() if v is not None}


@dataclass(frozen=True)
class StimulusFeatures:
    """An array computed from the stimuli: one row per stimulus on its first axis.

    The array has no time axis: its further axes are what the document names
    in :attr:`axes` (a vision model's tokens and features).

    Attributes:
        array: the array, shape ``(stimuli, ...)``.
        stim_ids: the typed stimulus ID of each row (``len == array.shape[0]``
            when the document is consistent; a view labels the rows it has IDs for).
        axes: one name per axis of ``array`` (``("stimulus", "token", "feature")``).
        source: what computed it, for titles (``"dinov2 blocks.11"``), or ``""``.
    """

    array: ArrayRef
    stim_ids: tuple[Any, ...]
    axes: tuple[str, ...]
    source: str = ""


@dataclass(frozen=True)
class AucScans:
    """An AUC experiment: scans of signal against radius.

    Attributes:
        scan_ids: one string per scan, in scan order.
        radius_unit, signal_unit: as recorded (``""`` when unknown).
        experiment_id: the experiment's ID, or None when unknown.
        experiment: the loaded experiment when it is small and safe to hold,
            else None (the arrays ``radius``, ``signal``, ``mask`` of the
            document stay lazy).
        radius_array, signal_array, mask_array: names in ``Document.arrays``.
        untrusted_arrays: array names whose member failed its checksum, so a
            plot of them must say so.
        overview: every scan's envelopes over the whole radius range,
            computed by a deferred check from the bytes it verified (a plot
            draws it without reading), or None.
        overview_pending: True while a pending deferred check will deliver
            ``overview`` (a plot waits for it instead of reading the arrays
            alongside the check); every result of that check clears it.
        table: the table of one row per scan, or None.
    """

    scan_ids: tuple[str, ...]
    radius_unit: str = ""
    signal_unit: str = ""
    experiment_id: str | None = None
    experiment: AucExperiment | None = None
    radius_array: str = "radius"
    signal_array: str = "signal"
    mask_array: str = "mask"
    untrusted_arrays: frozenset[str] = frozenset()
    overview: ScanOverview | None = field(default=None, compare=False, repr=False)
    overview_pending: bool = False
    table: Table | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ExperimentExport:
    """The document's AUC experiment can be exported (File > Export, ``inspector export``).

    Attributes:
        experiment_id: used for the suggested file name (None when unknown).
        load: returns the experiment to write; raises ``ExportError``
            (:mod:`inspector.formats.auc.export`) when the source is rejected.
    """

    experiment_id: str | None
    load: Callable[[], AucExperiment]


@dataclass(frozen=True)
class MemberContent:
    """One member of an archive, read after its digest verified: its text or its values.

    Attributes:
        name: the member name (``"arrays/signal.npy"``).
        text: the text of a JSON member or of the checksum list (None for arrays).
        node: the values of an ``.npy`` member, for ``inspector dump`` (None for text).
    """

    name: str
    text: str | None = None
    node: NodeData | None = None


@dataclass(frozen=True)
class StoredMember:
    """How one archive member is stored, from its ZIP entry; and its stored bytes.

    Attributes:
        name: the member name.
        method: the ZIP compression method (0 stored, 8 deflate).
        compressed_size, file_size: the stored and the inflated size in bytes.
        crc: the CRC-32 the ZIP directory records for the inflated bytes.
        read_stored: ``read_stored(offset, size)`` returns up to ``size`` stored
            (compressed) bytes from ``offset`` within the member's data; raises
            ``OSError`` when the archive cannot be read or was replaced since it
            was opened.
        content_digest: ``content_digest()`` inflates the member and returns
            ``(sha256 hex, problem)``, ``problem`` a sentence when the member's
            ZIP checks fail (CRC-32, sizes, corrupt data), else None; raises
            ``OSError`` like ``read_stored``.
    """

    name: str
    method: int
    compressed_size: int
    file_size: int
    crc: int
    read_stored: Callable[[int, int], bytes]
    content_digest: Callable[[], tuple[str, str | None]]


@dataclass(frozen=True)
class ArchiveMembers:
    """The members of an archive, each read only once its digest verified
    (``inspector dump ARCHIVE::member``).

    Attributes:
        names: the members present, in directory order.
        read: ``read(name)`` streams the member, checks its digest against the
            checksum list, and returns its :class:`MemberContent`; raises
            ``NodeReadError`` (:mod:`inspector.formats.nodes.data`) whose finding
            says why it is refused (no such member, not listed, digest or ZIP
            mismatch, unreadable, the file changed since it was opened).
        stored: how a member is stored, and its stored bytes unverified
            (``inspector diff`` compares two archives' members by them).
    """

    names: tuple[str, ...]
    read: Callable[[str], MemberContent]
    #: ``stored(name)``: the :class:`StoredMember` of a present, safe member that
    #: occurs once, or None (no such member, unsafe, duplicated, no local header).
    stored: Callable[[str], StoredMember | None] = lambda name: None


@dataclass(frozen=True)
class ExperimentGroups:
    """The file holds several experiments, of which the document offers one.

    Attributes:
        keys: every group's key, in listing order (``"RA1-280"``).
        selected: the key of the group the document offers (None when none is).
        open: ``open(key)`` returns a new document offering that group
            (a ``Document``); it reads the source again and never raises for
            bad input (an unknown key is an error finding of that document).
    """

    keys: tuple[str, ...]
    selected: str | None
    open: Callable[[str], Any]


@dataclass(frozen=True)
class ObjectData:
    """The stored values of every dataset and array-valued attribute of the object tree.

    Attributes:
        lookup: ``lookup(location)`` returns the
            :class:`~inspector.formats.nodes.data.NodeData` of the dataset
            ``"/path"`` or the attribute ``"/path@name"`` (the locations of
            ``Document.tree``), or None when there is none there (a group, a
            dangling link, a missing name).  It reads metadata only (no
            value); it raises :class:`~inspector.formats.nodes.data.NodeReadError`
            when the object exists but cannot be opened.  Call it off the GUI
            thread, like every read of the node.
    """

    lookup: Callable[[str], NodeData | None]
    #: ``attributes(location, start, count)``: the next attributes of the object at
    #: ``location`` beyond those its tree node lists (see :class:`AttributePage`);
    #: None when the format has no attributes to page.  Reads; off the GUI thread.
    attributes: Callable[[str, int, int], AttributePage] | None = None

    def node(self, location: str) -> NodeData | None:
        """The node at ``location`` (see :attr:`lookup`)."""
        return self.lookup(location)


#: ``Node.kind`` of the row standing for the attributes of an object that its tree node
#: does not list yet (its location is the object's); the views page them in through
#: :attr:`ObjectData.attributes`.
MORE_ATTRIBUTES = "more attributes"
#: Attributes read per page (:attr:`ObjectData.attributes`), a bounded batch.
ATTRIBUTE_PAGE = 1000


def more_attributes_text(shown: int, total: int, page: int) -> tuple[str, str]:
    """The name and details of the :data:`MORE_ATTRIBUTES` row when ``shown`` of an
    object's ``total`` attributes are listed and ``page`` are read at a time."""
    rest = total - shown
    return (f"{rest:,} more attributes",
            f"{shown:,} of {total:,} shown; open this row for the next {min(page, rest):,}")


@dataclass(frozen=True)
class AttributePage:
    """Attributes ``start .. start + len(nodes)`` of the ``total`` an object holds.

    An object's tree node lists its first attributes when the file is opened
    (a bounded number, in storage order); the others are read a page at a
    time when a view asks, each page in one bounded read (names in storage
    order from ``start``, values each capped as at open).

    Attributes:
        location: the object's location (``"/group"``).
        start: index of the first attribute of the page, in storage order.
        total: how many attributes the object holds.
        nodes: one ``Node`` of kind ``"attribute"`` each, as the tree shows them
            (sorted by name within the page).
    """

    location: str
    start: int
    total: int
    nodes: tuple[Node, ...]

    @property
    def end(self) -> int:
        """Index after the page's last attribute (``total`` when none is left)."""
        return self.start + len(self.nodes)


@dataclass(frozen=True)
class FormatMismatch:
    """The file is readable as its container but is not of the format its findings check.

    A plain HDF5 file opened by the recording reader is an HDF5 file, not a
    damaged recording.  The findings that say it is not a recording (the
    codes in :attr:`codes`) stay what they are, so ``inspector verify``
    still answers "is this a valid recording?" (``Document.ok`` false), but
    the window presents the file as what it is: no error icon or failure
    page for them (``Document.file_findings`` leaves them out).

    Attributes:
        container: what the file is (``"HDF5 file"``).
        format: the format it was checked against (``"VneuroTK recording"``).
        reason: why it is not of that format, one sentence without the file name.
        codes: codes of the findings that only answer "is the file of the
            format" (every other finding is about the file itself).
    """

    container: str
    format: str
    reason: str
    codes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Progress:
    """One progress event of a deferred check: ``done`` of ``total`` steps.

    ``member`` is the checksum row that was just finished, when there is one.
    """

    done: int
    total: int
    member: MemberCheck | None = None


ProgressFn = Callable[[Progress], None]
CancelFn = Callable[[], bool]


@dataclass(frozen=True)
class CheckResult:
    """What a deferred check found; applied by the thread owning the document.

    Attributes:
        findings: new findings, in discovery order.
        checksums: the new checksum table, or None to keep the current one.
        summary: ``verify --json`` summary keys to set.
        header: a new header tree, or None to keep the current one.
        withdraw_tables, withdraw_arrays: names no longer offered (their
            content failed verification).
        auc: a new :class:`AucScans`, or None to keep the current one.
        withdraw_auc: True when the AUC experiment is no longer offered.
        trials: a new :class:`TrialStructure` (the one opening offered, now
            with what the check read), or None to keep the current one.
        structure: the structural validation the check ran (an
            ``AucStructure``; its findings and summary keys are in
            ``findings`` and ``summary``), or None.
        structure_unchecked: why the structure is still not checked (the
            document's ``structure_unchecked``), or None to keep it as is.
        complete: True when the check ran to its end (not cancelled).
    """

    findings: tuple[Finding, ...] = ()
    checksums: ChecksumTable | None = None
    summary: Mapping[str, Any] = field(default_factory=dict)
    header: Node | None = None
    withdraw_tables: tuple[str, ...] = ()
    withdraw_arrays: tuple[str, ...] = ()
    auc: AucScans | None = None
    withdraw_auc: bool = False
    trials: TrialStructure | None = None
    structure: AucStructure | None = None
    structure_unchecked: str | None = None
    complete: bool = True


class DeferredCheck(Protocol):
    """Slow verification of an opened document, run off the GUI thread.

    ``run`` must not mutate the document: it reads what opening learned and
    returns a :class:`CheckResult`.  ``progress`` is called from the running
    thread; ``cancelled`` is polled before the first step and between steps.
    """

    title: str

    def run(self, progress: ProgressFn | None = None,
            cancelled: CancelFn | None = None) -> CheckResult: ...


@dataclass(frozen=True)
class Stimulus:
    """A stimulus image, decoded on demand.

    Attributes:
        stim_id: the typed ID (int, str, float...).
        kind: the stored kind (``array``, ``image_bytes``, ``path``).
        location: where it is stored (HDF5 path).
        load: returns an ``(H, W)`` or ``(H, W, C)`` uint8/float array;
            raises ``OSError`` or ``ValueError`` when the image cannot be
            decoded or found.
    """

    stim_id: Any
    kind: str
    location: str
    load: Callable[[], Any]
