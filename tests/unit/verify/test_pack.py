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
                          "estimate.json", "oversight.json", "report.html", "public_key.txt", MANIFEST, SIGNATURE}
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
    assert check.ok and check.labels == ("public",) and check.files == 9


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
                                  "estimate.json", "oversight.json", "report.html", "public_key.txt", MANIFEST])
def test_a_changed_byte_in_any_file_fails_naming_it(store: Store, name: str) -> None:
    files = _members(_pack(store))
    body = bytearray(files[name])
    # one letter or digit from the middle on (in the manifest, a digit of a digest), changed to another: the file
    # still parses, so what fails is its digest or the signature, not its reading
    at = (bytes(body).index(b'"sha256": "', len(body) // 2) + 11 if name == MANIFEST
          else next(i for i in range(len(body) // 2, len(body)) if chr(body[i]).isalnum()))
    body[at] = ord("1") if body[at] == ord("0") else ord("0")
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


# --- blind review: a pack holds every verdict or is refused (issue 58, MEDIUM 3) ------------------------------

def _blind_dispute(store: Store) -> None:
    """Blind double review; claim 1 of the public answer a live dispute (ana: unsupported, bo: supported), claim 0
    judged by ana alone (still in review): every verdict on it hidden from whoever has not judged it."""
    from graphrag.verify.policy import ReviewPolicy
    from graphrag.verify.status import keep_review_policy

    keep_review_policy(store, ReviewPolicy(2), by=local_principal(["public"], via=VIA_CLI))
    answer = store.answer(1)
    assert answer is not None
    judge(store, answer, "bo", [None, V.SUPPORTED])


def _exports(store: Store) -> int:
    return sum(1 for e in store.audit() if e.event == "export")


def test_under_blind_review_a_pack_without_an_identity_is_refused_not_emptied(store: Store, tmp_path: Path,
                                                                             capsys) -> None:
    from graphrag.verify.pack import PackRefused

    _blind_dispute(store)
    before = _exports(store)
    with pytest.raises(PackRefused, match="--whole-record"):
        _pack(store)
    pack = tmp_path / "p.zip"
    for who in ([], ["--me", "ana"], ["--me", "nobody"]):  # a self-declared name unlocks nothing
        capsys.readouterr()
        assert main(["export", "--format", "pack", "--out", str(pack), "--store", str(store.path), *who]) == 1
        err = capsys.readouterr().err
        assert "blind review is on" in err and "--whole-record" in err and "Traceback" not in err
        assert "verdict(s)" not in err and " 3 " not in err  # nothing counted from verdicts still judged blind
        assert not pack.exists()
    assert _exports(store) == before  # nothing exported, nothing audited as exported


def test_the_whole_record_is_the_same_pack_whatever_me_says(store: Store, tmp_path: Path, capsys) -> None:
    _blind_dispute(store)
    packs = {}
    for who in ([], ["--me", "ana"], ["--me", "bo"], ["--me", "zed"]):
        out = tmp_path / f"p{len(packs)}.zip"
        assert main(["export", "--format", "pack", "--whole-record", "--out", str(out), "--store", str(store.path),
                     *who]) == 0
        packs[" ".join(who)] = _members(out.read_bytes())
        assert verify_pack(out.read_bytes(), store_public(store)).ok
    verdicts = {k: m["verdicts.json"] for k, m in packs.items()}
    assert len(set(verdicts.values())) == 1 and len({m["answers.json"] for m in packs.values()}) == 1
    rows = json.loads(verdicts[""])
    assert sorted((r["claim_index"], r["reviewer"], r["verdict"]) for r in rows) == [
        (0, "ana", "supported"), (1, "ana", "unsupported"), (1, "bo", "supported")]
    scope = json.loads(packs[""]["scope.json"])
    assert scope["blind_verdicts_included"] == 3 and scope["withheld_verdicts"] == 0
    assert "ana" not in json.dumps(scope["exported_by"]) and "zed" not in json.dumps(
        json.loads(packs["--me zed"]["scope.json"])["exported_by"])  # --me names nobody in the pack
    report = packs[""]["report.html"].decode()
    assert "no verdict</td>" not in report and "not backed by ana" in report and "backed by bo" in report
    assert "3 of them on claims still judged blind or disputed" in report


def test_a_team_admin_gets_the_whole_record_a_team_reviewer_none(store: Store) -> None:
    from graphrag.access.identity import Identity, Viewer
    from graphrag.verify.pack import PackRefused

    _blind_dispute(store)

    def team(role: str) -> Viewer:
        return Viewer(Identity(f"sub-{role}", f"{role}@example.com", frozenset(), "iss"), frozenset({"public"}),
                      role, team=True)

    data = export_pack(store, by=team("admin")).data
    assert len(json.loads(_members(data)["verdicts.json"])) == 3
    # below the door (which asks for the admin role anyway): saying "whole record" is a local user's word only
    with pytest.raises(PackRefused, match="team admin"):
        export_pack(store, by=team("adjudicator"), whole_record=True)


def test_the_refusal_says_nothing_of_whether_a_verdict_is_hidden(tmp_path: Path) -> None:
    from graphrag.verify.pack import PackRefused
    from graphrag.verify.policy import ReviewPolicy
    from graphrag.verify.status import keep_review_policy

    with Store(tmp_path / "s.db") as s:  # blind review, no verdict at all: refused all the same
        write_document_rows(s, "policy", PUBLIC_TEXT, ("public",), ["export"], [])
        recorded_answer(s, [0.9])
        keep_review_policy(s, ReviewPolicy(2), by=local_principal(["public"], via=VIA_CLI))
        with pytest.raises(PackRefused) as nothing_hidden:
            _pack(s)
    with Store(tmp_path / "t.db") as s:  # and with a verdict hidden: the same words
        write_document_rows(s, "policy", PUBLIC_TEXT, ("public",), ["export"], [])
        keep_review_policy(s, ReviewPolicy(2), by=local_principal(["public"], via=VIA_CLI))
        judge(s, recorded_answer(s, [0.9]), "ana", [V.SUPPORTED])
        with pytest.raises(PackRefused) as one_hidden:
            _pack(s)
    assert str(nothing_hidden.value) == str(one_hidden.value)


def test_without_blind_review_a_pack_needs_nothing_more(store: Store) -> None:
    files = _members(_pack(store))
    assert json.loads(files["scope.json"])["blind_verdicts_included"] == 0
    assert len(json.loads(files["verdicts.json"])) == 2


def test_whole_record_is_for_packs_only(store: Store, capsys) -> None:
    assert main(["export", "--format", "csv", "--whole-record", "--store", str(store.path)]) == 2
    assert "--whole-record is for --format pack" in capsys.readouterr().err


# --- the zip holds its entries and nothing else (issue 58, LOW) ----------------------------------------------

def _forged(store: Store) -> bytes:
    """A pack of the same files with every verdict turned "supported", re-signed by a forger's own key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from graphrag.verify.pack import PackContents, build_pack
    from graphrag.verify.signing import SigningKey

    files = _members(_pack(store))
    verdicts = [{**v, "verdict": "supported"} for v in json.loads(files["verdicts.json"])]
    contents = PackContents(json.loads(files["scope.json"]), json.loads(files["answers.json"]), verdicts,
                            json.loads(files["audit.json"]), json.loads(files["policy.json"]),
                            json.loads(files["estimate.json"]))
    return build_pack(contents, SigningKey(Ed25519PrivateKey.generate(), Path("forger")))


@pytest.mark.parametrize("shape", ["forged zip before", "forged zip after", "blob after", "blob before",
                                   "zip comment"])
def test_bytes_before_or_after_the_entries_are_refused(store: Store, shape: str, tmp_path: Path, capsys) -> None:
    genuine = _pack(store)
    assert verify_pack(genuine, store_public(store)).ok
    forged = _forged(store)
    blob = b"\x00garbage" * 50
    data = {"forged zip before": forged + genuine, "forged zip after": genuine + forged,
            "blob after": genuine + blob, "blob before": blob + genuine,
            "zip comment": genuine[:-2] + (5).to_bytes(2, "little") + b"hello"}[shape]
    if shape in ("forged zip before", "blob before", "zip comment"):
        # what Python's own reader makes of it: the genuine entries, read from the directory at the end
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            assert z.read("verdicts.json") == _members(genuine)["verdicts.json"]
    with pytest.raises(PackError, match=r"refused: .*(before|after|end record|comment)"):
        verify_pack(data, store_public(store))
    (tmp_path / "p.zip").write_bytes(data)
    capsys.readouterr()
    assert main(["pack", "verify", str(tmp_path / "p.zip"), "--key", store_public(store)]) == 2
    assert capsys.readouterr().err.startswith("error: refused")


def _layout(data: bytes) -> list[tuple[int, int]]:
    """(central record offset, local header offset) of each entry."""
    import struct

    end = data[-22:]
    count, start = struct.unpack("<H", end[10:12])[0], struct.unpack("<I", end[16:20])[0]
    out, at = [], start
    for _ in range(count):
        n, m, k = struct.unpack("<HHH", data[at + 28:at + 34])
        out.append((at, struct.unpack("<I", data[at + 42:at + 46])[0]))
        at += 46 + n + m + k
    return out


def _point(data: bytes, record: int, local: int) -> bytes:
    return data[:record + 42] + local.to_bytes(4, "little") + data[record + 46:]


def test_a_directory_that_does_not_match_its_local_headers_is_refused(store: Store) -> None:
    from graphrag.verify.pack import check_layout

    genuine = _pack(store)
    check_layout(genuine)
    layout = _layout(genuine)
    # two directory entries naming one local header (a streaming reader sees one entry, the directory two)
    (_, local0), (rec1, _) = layout[0], layout[1]
    with pytest.raises(PackError, match="refused"):
        check_layout(_point(genuine, rec1, local0))
    # a local header whose name differs from the directory's (a streaming reader shows another file)
    name_at = local0 + 30
    renamed = bytearray(genuine)
    renamed[name_at] = ord("x")
    with pytest.raises(PackError, match="local header"):
        check_layout(bytes(renamed))
    # bytes slipped between two entries, the directory's offsets moved past them
    gap = b"PK\x03\x04 smuggled"
    second = layout[1][1]
    moved = bytearray(genuine[:second] + gap + genuine[second:])
    for rec, local in layout:
        if local >= second:
            moved = bytearray(_point(bytes(moved), rec + len(gap), local + len(gap)))
    start = int.from_bytes(moved[-6:-2], "little") + len(gap)
    moved[-6:-2] = start.to_bytes(4, "little")
    with pytest.raises(PackError, match="between its entries"):
        check_layout(bytes(moved))


class _Stream(io.RawIOBase):
    """A write-only stream that cannot seek: zipfile then writes each entry's sizes after it (data descriptors)."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:  # type: ignore[override]
        self.buf += bytes(b)
        return len(b)


def test_a_pack_rezipped_by_a_streaming_writer_still_verifies(store: Store) -> None:
    files = _members(_pack(store))
    out = _Stream()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in files.items():
            z.writestr(name, body)
    with zipfile.ZipFile(io.BytesIO(bytes(out.buf))) as z:
        assert all(i.flag_bits & 0x8 for i in z.infolist())
    assert verify_pack(bytes(out.buf), store_public(store)).ok


def _raw_zip(files: dict[str, bytes], prefix: bytes = b"", after: dict[str, bytes] | None = None,
             stored_streamed: bool = False, stored: bool = False) -> bytes:
    """A zip written by hand, every offset counted from the start of the whole (``prefix`` included): each file
    deflated, ``after[name]`` appended to its compressed bytes (and counted in its compressed size)."""
    import struct
    import zlib

    out, central = bytearray(prefix), bytearray()
    for name, body in files.items():
        if stored_streamed or stored:
            raw, method, flags = body + (after or {}).get(name, b""), 0, 0x8 if stored_streamed else 0
        else:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            raw, method, flags = c.compress(body) + c.flush() + (after or {}).get(name, b""), 8, 0
        crc, n = zlib.crc32(body), name.encode()
        sizes = (0, 0, 0) if flags & 0x8 else (crc, len(raw), len(body))
        offset = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, flags, method, 0, 0x21, *sizes, len(n), 0) + n + raw
        if flags & 0x8:
            out += struct.pack("<4sIII", b"PK\x07\x08", crc, len(raw), len(body))
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, flags, method, 0, 0x21, crc, len(raw),
                               len(body), len(n), 0, 0, 0, 0, 0, offset) + n
    start = len(out)
    out += central + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(files), len(files), len(central), start, 0)
    return bytes(out)


def test_forged_bytes_inside_the_entries_are_refused(store: Store) -> None:
    from graphrag.verify.pack import check_layout

    genuine = _members(_pack(store))
    assert verify_pack(_raw_zip(genuine), store_public(store)).ok  # the hand-made zip itself is fine
    # a forged zip in front, the genuine directory's offsets counted past it (so no reader sees "extra bytes")
    forged = _forged(store)
    with pytest.raises(PackError, match="before the zip's first entry"):
        check_layout(_raw_zip(genuine, prefix=forged))
    # a forged entry hidden after a file's deflate stream, inside its declared compressed size: Python's reader
    # stops at the stream's end and never sees it; a streaming reader takes it for the next entry
    hidden = _raw_zip(genuine, after={"scope.json": _raw_zip({"verdicts.json": b"[]"})})
    with zipfile.ZipFile(io.BytesIO(hidden)) as z:
        assert z.read("scope.json") == genuine["scope.json"]
    with pytest.raises(PackError, match="do not end where the zip says"):
        verify_pack(hidden, store_public(store))
    assert verify_pack(_raw_zip(genuine, stored=True), store_public(store)).ok  # stored, not deflated: fine
    with pytest.raises(PackError, match="stored or compressed in a way a pack never is"):  # bytes after its data
        verify_pack(_raw_zip(genuine, stored=True, after={"scope.json": _raw_zip({"verdicts.json": b"[]"})}))
    # a stored entry whose size follows it: a streaming reader finds its end only by a signature it may hold
    with pytest.raises(PackError, match="stored or compressed in a way a pack never is"):
        verify_pack(_raw_zip(genuine, stored_streamed=True))


def test_the_report_counts_verdicts_in_the_record_page_s_words(store: Store) -> None:
    """Issue 60: the report counted "partially_supported 2, retracted 1, correction 1". It says each verdict in its
    kind's words, as the Record page does, and what an undo made of one."""
    from graphrag.verify.review import record_verdict
    from graphrag.verify.undo import undo_verdict

    answer = recorded_answer(store, [0.5, 0.5, 0.5])
    for claim in answer.claims:
        record_verdict(store, answer, claim, claim.citations[0], V.PARTIAL, "bo")
    undo_verdict(store, answer, store.verdicts()[-1].id or 0, "bo")
    report = _members(_pack(store))["report.html"].decode()
    # the first answer's claims hold the same words and sentence: their verdicts carry to the new answer's, both ways
    assert ("10 verdict rows: 2 backed, 4 partly backed, 2 not backed, 1 taken back by an undo, "
            "1 undo (a correction row).") in report, report
    assert "partially_supported" not in report and "correction 1" not in report and "retracted" not in report
    assert "partly backed by bo" in report and "taken back by an undo by bo" in report
