"""The signed evidence pack: what it holds, that `pack verify` passes it untouched and names every tampering, and
that hostile files get a clear refusal without a traceback or a write. No model: the store is written directly."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from graphrag.access import VIA_CLI, local_principal
from graphrag.cli import main
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.exports import export_pack
from graphrag.verify.pack import MANIFEST, SIGNATURE, PackError, read_members, verify_pack
from graphrag.verify.signing import key_path
from helpers import write_document_rows
from seeds import judge, recorded_answer

pytestmark = pytest.mark.unit

PUBLIC_TEXT = "Snapshot exports remain available for 30 days."
SECRET_TEXT = "The vault keeps backups in Quillmarsh."


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "store.db")
    write_document_rows(s, "policy", PUBLIC_TEXT, ("public",), ["export"], [])
    write_document_rows(s, "ops", SECRET_TEXT, ("internal",), ["vault"], [])
    judge(s, recorded_answer(s, [0.9, 0.2]), "ana", [V.SUPPORTED, V.UNSUPPORTED])
    judge(s, recorded_answer(s, [0.8], doc="ops", access=("internal",)), "ana", [V.SUPPORTED])
    yield s
    s.close()


def _pack(store: Store, labels: tuple[str, ...] = ("public",)) -> bytes:
    return export_pack(store, by=local_principal(labels, via=VIA_CLI)).data


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def test_a_pack_holds_the_record_its_labels_see_and_verifies(store: Store) -> None:
    data = _pack(store)
    files = _members(data)
    assert set(files) == {"scope.json", "answers.json", "verdicts.json", "audit.json", "policy.json",
                          "estimate.json", "report.html", "public_key.txt", MANIFEST, SIGNATURE}
    scope = json.loads(files["scope.json"])
    assert scope["labels"] == ["public"]
    answers = json.loads(files["answers.json"])
    assert len(answers) == 1  # the internal answer is not the public exporter's to see
    cite = answers[0]["claims"][0]["citations"][0]
    assert cite["text"] == PUBLIC_TEXT and len(cite["document_sha256"]) == 64 and len(cite["sentence_sha256"]) == 64
    assert [v["verdict"] for v in json.loads(files["verdicts.json"])] == ["supported", "unsupported"]
    every = b"".join(files.values())
    assert b"Quillmarsh" not in every and b"PRIVATE KEY" not in every
    audit = json.loads(files["audit.json"])
    assert audit[-1]["event"] == "export" and audit[-1]["detail"]["what"] == "evidence pack"
    manifest = json.loads(files[MANIFEST])
    assert manifest["labels"] == ["public"] and {f["name"] for f in manifest["files"]} == set(files) - {MANIFEST,
                                                                                                       SIGNATURE}
    assert "<h1>" in files["report.html"].decode() and PUBLIC_TEXT in files["report.html"].decode()
    check = verify_pack(data, store_public(store))
    assert check.ok and check.labels == ("public",) and check.files == 8


def store_public(store: Store) -> str:
    from graphrag.verify.exports import public_key

    return public_key(store)


def test_the_private_key_lives_beside_the_store_for_its_owner_only(store: Store) -> None:
    _pack(store)
    path = key_path(store.url)
    assert store.path is not None and path.parent == store.path.parent
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    first = store_public(store)
    assert store_public(store) == first  # one key per store, kept
    path.chmod(0o644)
    assert main(["export", "--format", "pack", "--out", str(path.parent / "p.zip"), "--store", str(store.path)]) == 1


@pytest.mark.parametrize("name", ["scope.json", "answers.json", "verdicts.json", "audit.json", "policy.json",
                                  "estimate.json", "report.html", "public_key.txt", MANIFEST])
def test_a_changed_byte_in_any_file_fails_naming_it(store: Store, name: str) -> None:
    files = _members(_pack(store))
    body = bytearray(files[name])
    body[len(body) // 2] ^= 0x01
    files[name] = bytes(body)
    check = verify_pack(_zip(files), store_public(store))
    assert not check.ok
    assert any(name in f or (name == MANIFEST and f.startswith("signature")) for f in check.failures), check.failures


def test_an_added_or_removed_file_fails(store: Store) -> None:
    files = _members(_pack(store))
    added = verify_pack(_zip({**files, "extra.txt": b"planted"}), store_public(store))
    assert added.failures == ("added: extra.txt is in the pack but not in the manifest",)
    removed = verify_pack(_zip({n: b for n, b in files.items() if n != "audit.json"}), store_public(store))
    assert removed.failures == ("removed: audit.json is in the manifest but not in the pack",)


def test_a_pack_signed_by_another_key_fails_against_the_expected_one(store: Store, tmp_path: Path) -> None:
    other = Store(tmp_path / "other.db")
    write_document_rows(other, "policy", PUBLIC_TEXT, ("public",), ["export"], [])
    forged = export_pack(other, by=local_principal(["public"], via=VIA_CLI)).data
    other.close()
    check = verify_pack(forged, store_public(store))
    assert not check.ok and check.failures[0].startswith("signer: the pack names")
    # A forger re-signing a changed manifest with their own key and naming it passes only without --key.
    assert verify_pack(forged).ok


def test_the_cli_exits_nonzero_naming_what_failed(store: Store, tmp_path: Path, capsys) -> None:
    pack = tmp_path / "p.zip"
    assert main(["export", "--format", "pack", "--out", str(pack), "--store", str(store.path)]) == 0
    assert main(["pack", "key", "--store", str(store.path)]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("ed25519:")
    assert main(["pack", "verify", str(pack), "--key", key]) == 0
    (tmp_path / "key.txt").write_text(key + "\n")
    assert main(["pack", "verify", str(pack), "--key", str(tmp_path / "key.txt")]) == 0
    files = _members(pack.read_bytes())
    files["verdicts.json"] = files["verdicts.json"].replace(b"unsupported", b"supported")
    pack.write_bytes(_zip(files))
    capsys.readouterr()
    assert main(["pack", "verify", str(pack), "--key", key]) == 1
    assert "changed: verdicts.json" in capsys.readouterr().err


def _bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(MANIFEST, b"{}")
        z.writestr("answers.json", b"\0" * (64 * 1024 * 1024))  # 64 MiB of zeros in about 64 KiB
    return buf.getvalue()


@pytest.mark.parametrize(("data", "message"), [
    (b"this is not a zip", "not a zip file"),
    (_bomb(), "zip bomb"),
    (_zip({"../../escaped.txt": b"x", MANIFEST: b"{}", SIGNATURE: b"00"}), "outside the pack's folder"),
    (_zip({"/etc/passwd": b"x"}), "outside the pack's folder"),
    (_zip({"scope.json": b"{}", SIGNATURE: b"00"}), "no manifest.json"),
    (_zip({"scope.json": b"{}", MANIFEST: b"{}"}), "no manifest.sig"),
    (_zip({MANIFEST: b"not json", SIGNATURE: b"00"}), "manifest.json cannot be read"),
])
def test_bad_input_is_a_clear_error_and_writes_nothing(data: bytes, message: str, tmp_path: Path, capsys,
                                                       monkeypatch) -> None:
    with pytest.raises(PackError, match=message):
        verify_pack(data)
    work = tmp_path / "work"
    work.mkdir()
    (work / "bad.zip").write_bytes(data)
    monkeypatch.chdir(work)
    assert main(["pack", "verify", "bad.zip"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert sorted(os.listdir(work)) == ["bad.zip"] and not (tmp_path / "escaped.txt").exists()


def test_a_header_that_lies_about_its_size_is_refused() -> None:
    data = bytearray(_zip({MANIFEST: b"{}" * 1000, SIGNATURE: b"00"}))
    # the central directory's uncompressed size of the first entry, made smaller than what is stored
    cd = data.rfind(b"PK\x01\x02")
    first = data.find(b"PK\x01\x02")
    assert cd >= first >= 0
    data[first + 24:first + 28] = (10).to_bytes(4, "little")
    with pytest.raises(PackError):
        read_members(bytes(data))


def test_the_report_escapes_what_it_shows(store: Store) -> None:
    from seeds import answer_citing

    answer_citing(store, ['<script>alert(1)</script> "quoted" & kept'])
    report = _members(_pack(store))["report.html"].decode()
    assert "<script>" not in report and "&lt;script&gt;alert(1)&lt;/script&gt;" in report
