"""Folder ingest stays inside the chosen folder and never opens kernel files, FIFOs or sockets.

Before, a link in the folder to a file elsewhere was ingested as public, `/proc/self/environ` was
read like a document, and a FIFO named as a path blocked the ingest for ever.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from graphrag.ingest.pipeline import Ingestor, IngestReport
from graphrag.store import Store
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

CANARY = "Canary7 uses Vault9 behind the wall."


def ingest(store: Store, *paths: Path | str, name_skipped: bool = True) -> IngestReport:
    ingestor = Ingestor(store, PatternExtractor(), HashEmbedder())
    return ingestor.ingest_paths(list(paths), **({} if name_skipped else {"name_skipped": False}))


def texts_in(store: Store) -> str:
    return "\n".join(d.text for d in store.documents())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one document, and a secret outside it."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text(CANARY + "\n", encoding="utf-8")
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "notes.md").write_text("Notes1 uses Wiki2.\n", encoding="utf-8")
    return root


def test_a_link_to_a_file_outside_the_folder_is_not_followed(store: Store, folder: Path) -> None:
    (folder / "leak.md").symlink_to(folder.parent / "outside" / "secret.md")
    report = ingest(store, folder)
    by_id = {d.id: d for d in report.documents}
    assert by_id["notes"].status == "ok"
    assert by_id["leak"].status == "rejected" and "outside the chosen folder" in (by_id["leak"].error or "")
    assert "Canary7" not in texts_in(store)


def test_a_linked_subfolder_is_not_entered(store: Store, folder: Path) -> None:
    (folder / "more").symlink_to(folder.parent / "outside", target_is_directory=True)
    report = ingest(store, folder)
    assert "Canary7" not in texts_in(store)
    assert any(d.id == "more" and d.status == "rejected" and "link to a folder" in (d.error or "")
               for d in report.documents)


def test_a_link_inside_the_folder_is_read(store: Store, folder: Path) -> None:
    (folder / "alias.md").symlink_to(folder / "notes.md")
    by_id = {d.id: d for d in ingest(store, folder).documents}
    assert by_id["alias"].status == "ok" and by_id["notes"].status == "ok"


def test_a_manifest_linked_from_outside_fails_closed(store: Store, folder: Path) -> None:
    (folder.parent / "outside" / "manifest.toml").write_text('[defaults]\naccess = ["public"]\n')
    (folder / "manifest.toml").symlink_to(folder.parent / "outside" / "manifest.toml")
    report = ingest(store, folder)
    assert {d.status for d in report.documents} == {"rejected"}
    assert any("cannot be read" in p for p in report.problems)


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/self/cwd", "/sys/kernel", "/dev/null", "/dev/zero"])
def test_kernel_filesystems_are_refused(store: Store, path: str) -> None:
    report = ingest(store, path)
    assert [d.status for d in report.documents] == ["rejected"]
    assert "kernel filesystem" in (report.documents[0].error or "")
    assert store.counts()["versions"] == 0


def test_a_fifo_and_a_socket_are_never_opened(store: Store, folder: Path) -> None:
    fifo = folder / "pipe.md"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock.md"))
    done: list[IngestReport] = []
    worker = threading.Thread(target=lambda: done.append(ingest(store, folder, fifo)), daemon=True)
    try:
        worker.start()
        worker.join(60)
        assert done, "the ingest blocked on a FIFO"
    finally:
        if not done:  # release a reader stuck on the FIFO so the test run can end
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        sock.close()
    rows = [(d.id, d.status, d.error or "") for d in done[0].documents]
    assert ("notes", "ok", "") in rows
    assert sum(s == "rejected" and "not a regular file" in e for _, s, e in rows) == 3  # pipe twice, sock once


def test_the_page_mode_counts_files_not_attempted_and_never_names_them(store: Store, folder: Path) -> None:
    (folder / "leak.md").symlink_to(folder.parent / "outside" / "secret.md")
    (folder / "id_rsa").write_text("key")
    (folder / "payroll.xlsx").write_text("cells")
    (folder / "empty.md").write_text("  \n")  # attempted: its own message stays
    report = ingest(store, folder, name_skipped=False)
    everything = repr(report.to_json())
    for name in ("leak", "id_rsa", "payroll", "secret", "Canary7"):
        assert name not in everything, name
    assert sorted(report.skipped) == ["1 file skipped: outside the folder", "2 files skipped: unsupported type"]
    by_id = {d.id: d for d in report.documents}
    assert by_id["empty"].status == "rejected" and "empty file" in (by_id["empty"].error or "")
    # the CLI names them, with the reason, to the person who chose the folder
    named = {d.id: d.error for d in ingest(store, folder).documents}
    assert "outside the chosen folder" in (named["leak"] or "") and "unsupported" in (named["id_rsa"] or "")


def test_a_report_keeps_its_own_timings(store: Store, folder: Path) -> None:
    ingestor = Ingestor(store, PatternExtractor(), HashEmbedder())
    first = ingestor.ingest_paths([folder])
    before = first.timings.total_s
    (folder / "more.md").write_text("More1 uses Things2.\n")
    ingestor.ingest_paths([folder])
    assert first.timings.total_s == before


def test_a_kernel_filesystem_mounted_elsewhere_is_refused_by_its_type(store: Store, folder: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc can be mounted anywhere (a container, a bind mount): the mount type decides, not the path."""
    from graphrag.ingest import folders as fs
    (folder / "procfs").mkdir()
    (folder / "procfs" / "environ.md").write_text(CANARY)
    (folder / "procfs2").mkdir()
    (folder / "procfs2" / "environ.md").write_text(CANARY)
    real = fs._read_mounts()
    monkeypatch.setattr(fs, "_read_mounts", lambda: [*real, (folder / "procfs", "proc"), (folder / "procfs2", "sysfs")])
    monkeypatch.setattr(fs, "_MOUNTS", (0.0, []))
    report = ingest(store, folder)
    assert "Canary7" not in texts_in(store)
    assert sum("kernel filesystem" in (d.error or "") for d in report.documents) == 2
    assert [d.status for d in ingest(store, folder / "procfs" / "environ.md").documents] == ["rejected"]
