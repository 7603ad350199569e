"""File > Export to AUCX… of the main window: ask where, write on a job, offer to open it.

:class:`WindowExport` is the second layer of
:class:`~inspector.ui.main_window.MainWindow`.  Its dialogs
(:meth:`~WindowExport.ask_export_path`, :meth:`~WindowExport.confirm_replace`,
:meth:`~WindowExport.offer_open`, :meth:`~WindowExport.report_error`) are
methods that tests override.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog

from inspector.jobs import JobContext, JobRunner
from inspector.ui.document_tab import DocumentTab
from inspector.ui.export_support import (
    export_source,
    export_unavailable_reason,
    suggested_export_path,
)
from inspector.ui.window_paths import path_key
from inspector.ui.window_tabs import WindowTabs

if TYPE_CHECKING:
    from inspector.formats.auc.export import ExportSource


class WindowExport(WindowTabs):
    """Export of the current AUC document to a verified AUCX archive.

    Signals:
        export_finished(bool ok, str text): an export ended; ``text`` is the
            written path, or the reason it failed.
    """

    export_finished = Signal(bool, str)
    jobs: JobRunner

    # -- export to AUCX ---------------------------------
    @staticmethod
    def _export_reason(tab: DocumentTab | None) -> str | None:
        """Why the current tab cannot be exported (None when it can)."""
        if tab is None or not tab.has_views or tab.doc is None:
            return export_unavailable_reason(None)
        return export_unavailable_reason(tab.doc, tab.export_offered)

    def ask_export_path(self, suggested: str) -> str | None:
        """Ask where to write the archive (None if cancelled). Tests override this."""
        path, _ = QFileDialog.getSaveFileName(
            self, "Export to AUCX", suggested, "AUCX archives (*.aucx)",
            options=QFileDialog.Option.DontConfirmOverwrite)
        return path or None

    def confirm_replace(self, path: str) -> bool:
        """Ask once before replacing an existing file. Tests override this."""
        answer = QMessageBox.question(
            self, "Replace file?", f"{path} already exists.\nReplace it with the exported archive?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def offer_open(self, path: str) -> bool:
        """Tell that the export succeeded and offer to open it. Tests override this."""
        answer = QMessageBox.question(
            self, "Export finished", f"Wrote {path}.\nOpen the new archive?",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close,
            QMessageBox.StandardButton.Open)
        return answer == QMessageBox.StandardButton.Open

    def report_error(self, message: str) -> None:
        """Say why an export failed. Tests override this."""
        QMessageBox.warning(self, "Export to AUCX failed", message)

    def export_current(self) -> None:
        """File > Export to AUCX…: ask for a destination, write it on a job."""
        tab = self.current_tab()
        reason = self._export_reason(tab)
        if reason is not None or tab is None or tab.doc is None:
            self.report_error(reason or "")
            return
        doc = tab.doc
        answer = self.ask_export_path(str(suggested_export_path(doc)))
        if not answer:
            return
        dest = Path(answer)
        if not dest.suffix:
            dest = dest.with_suffix(".aucx")
        if path_key(dest) == path_key(doc.path):
            self.report_error(f"{dest} is the document being exported; an opened file is never "
                              "overwritten. Choose another file name.")
            return
        overwrite = False
        if dest.exists():
            if not self.confirm_replace(str(dest)):
                return
            overwrite = True
        self.start_export(export_source(doc), dest, overwrite)

    def start_export(self, source: ExportSource, dest: Path, overwrite: bool) -> None:
        """Run ``export_to_aucx(source, dest)`` on a job with a progress dialog.

        ``source`` is a verified document (never mutated by the job) or a
        path the exporter opens and verifies itself (see ``export_source``).
        """
        from inspector.formats.auc.export import ExportError, export_to_aucx

        dlg = QProgressDialog(f"Exporting to {dest.name}…", "", 0, 0, self)
        dlg.setWindowTitle("Export to AUCX")
        dlg.setCancelButton(None)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)
        dlg.setAutoClose(False)
        dlg.setValue(0)
        self.export_dialog = dlg

        def work(ctx: JobContext) -> tuple[bool, str]:
            def progress(done: int, total: int, message: str | None = None, *_rest: object) -> None:
                ctx.progress(int(done), int(total), message)

            try:
                export_to_aucx(source, dest, overwrite=overwrite, progress=progress)
            except ExportError as exc:
                return False, str(exc)
            return True, str(dest)

        def on_progress(done: int, total: int, message: Any) -> None:
            dlg.setMaximum(max(total, 1))
            dlg.setValue(done)
            if isinstance(message, str) and message:
                dlg.setLabelText(f"Exporting to {dest.name}: {message}…")

        def done(result: tuple[bool, str]) -> None:
            dlg.close()
            ok, text = result
            self._export_done(ok, text)

        def failed(message: str, _tb: str) -> None:
            dlg.close()
            self._export_done(False, message)

        self.statusBar().showMessage(f"Exporting to {dest}…")
        self.jobs.submit(work, on_done=done, on_error=failed, on_progress=on_progress)

    def _export_done(self, ok: bool, text: str) -> None:
        self.export_finished.emit(ok, text)
        if not ok:
            self.statusBar().showMessage("Export failed", 8000)
            self.report_error(text)
            return
        self.statusBar().showMessage(f"Exported {text}", 8000)
        stale = self.tab_for(Path(text))
        if stale is not None:
            self.reload_tab(stale)
        if self.offer_open(text):
            self.open_path(Path(text))
