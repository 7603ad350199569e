"""File > Open: pick files, or type ``FILE::/path`` to open a file at one of its nodes.

The same address syntax as the command line (``inspector FILE::/group/dataset``):
typed into the dialog's file-name box, the part before ``::`` names a file
(relative to the folder shown) and the part after it the node to open.  Qt's
own dialog is used, since a platform's native dialog gives no way to accept
a name that is not an existing file.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QLineEdit, QWidget

__all__ = ["OpenDialog", "typed_address"]


def typed_address(text: str, folder: Path) -> str | None:
    """``FILE::/path`` with FILE made absolute from ``folder``, when ``text`` is such an
    address naming an existing file; else None (quotes around the text are dropped)."""
    text = text.strip().strip('"').strip()
    if "::" not in text:
        return None
    name, node = text.split("::", 1)
    path = Path(name).expanduser()
    if not path.is_absolute():
        path = folder / path
    if not path.exists():
        return None
    return f"{path}::{node}"


class OpenDialog(QFileDialog):
    """The Open dialog: existing files, or one ``FILE::/path`` address typed in.

    Attributes:
        address: the typed address accepted (``""`` when files were picked).
    """

    def __init__(self, parent: QWidget | None, directory: str, filters: str) -> None:
        super().__init__(parent, "Open files", directory, filters)
        self.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        self.setLabelText(QFileDialog.DialogLabel.FileName, "File (or FILE::/path):")
        self.address = ""

    def name_edit(self) -> QLineEdit | None:
        """The file-name box of Qt's dialog."""
        return self.findChild(QLineEdit, "fileNameEdit")

    def accept(self) -> None:
        """Accept a typed ``FILE::/path`` of an existing file as it is; else as Qt does."""
        edit = self.name_edit()
        address = typed_address(edit.text(), Path(self.directory().absolutePath())) \
            if edit is not None else None
        if address is not None:
            self.address = address
            QDialog.accept(self)
            return
        super().accept()

    def chosen(self) -> list[str]:
        """What to open: the typed address, or the files picked."""
        return [self.address] if self.address else list(self.selectedFiles())
