"""The oversight report in the evidence pack (issue 62, item 5), on both engines: who may review, the policy in force
over time, how many answers were shown before verification, how many verified answers later lost their sources, the
estimate with its interval; signed with the rest (``pack verify`` passes, and fails on a changed byte of it). No
model: answers are written straight into the store."""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path

import pytest

from graphrag.access import Forbidden, Viewer
from graphrag.access.identity import Identity
from graphrag.cli import main
from graphrag.config import Config
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.actions import record_sign_in, set_review_policy
from graphrag.verify.exports import export_pack, public_key
from graphrag.verify.pack import verify_pack
from graphrag.verify.review import record_verdict
from helpers import write_document_rows
from seeds import recorded_answer, write_version

SENTENCE = "Snapshot exports remain available for 30 days."
ACCESS = """
[[grant]]
email = "ana@example.com"
labels = ["public"]
role = "admin"

[[grant]]
group = "support-leads"
labels = ["public"]
role = "reviewer"

[[grant]]
email = "bob@example.com"
labels = ["public"]
"""


def member(role: str, name: str) -> Viewer:
    return Viewer(Identity(f"sub-{name}", f"{name}@example.com", frozenset(), "iss"), frozenset({"public"}), role,
                  team=True)


ANA, CAT, BOB = member("admin", "ana"), member("reviewer", "cat"), member("viewer", "bob")


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


@pytest.fixture()
def record(any_store: Store) -> Store:
    """An answer shown before the hold, the hold set (and a reader's try to lift it refused), an answer asked under
    it, the first verified by a signed-in reviewer, and one asked later that carries those verdicts."""
    s = any_store
    write_document_rows(s, "policy", SENTENCE, ("public",), ["export"], [])
    first = recorded_answer(s, [0.9])
    set_review_policy(s, ANA, Config(), held_until_verified=True)
    with pytest.raises(Forbidden):
        set_review_policy(s, BOB, Config(), held_until_verified=False)
    record_sign_in(s, CAT, Config())
    time.sleep(1.05)  # the store's times are to the second: a tie counts an answer as shown unverified
    held = recorded_answer(s, [0.8, 0.4])
    assert held.id == 2
    record_verdict(s, first, first.claims[0], first.claims[0].citations[0], V.SUPPORTED, CAT.name, by=CAT)
    time.sleep(1.05)
    carried = recorded_answer(s, [0.7])  # "claim 0" on the same sentence: judged before it was asked
    assert carried.id == 3
    return s


def test_the_pack_reports_oversight_and_stays_verifiable(record: Store, tmp_path: Path) -> None:
    policy = tmp_path / "access.toml"
    policy.write_text(ACCESS, encoding="utf-8")
    pack = export_pack(record, by=ANA, access_policy=policy, config_home=tmp_path / "config")
    key = public_key(record, config_home=tmp_path / "config")
    check = verify_pack(pack.data, key)
    assert check.ok, check.failures
    files = members(pack.data)
    assert any(f["name"] == "oversight.json" for f in json.loads(files["manifest.json"])["files"])  # signed
    o = json.loads(files["oversight.json"])
    who = o["who_may_review"]
    assert [(g["who"], g["role"]) for g in who["grants"]] == [("email ana@example.com", "admin"),
                                                               ("group support-leads", "reviewer")]
    assert [s["who"] for s in who["signed_in"]] == ["cat@example.com"]
    assert [(r["who"], r["verdicts"]) for r in who["reviewers"]] == [("cat@example.com", 1)]  # the carried one: not again
    periods = o["policy_over_time"]
    assert [(p["required_verdicts"], p["held_until_verified"], p["set_by"]) for p in periods] == [
        (1, False, None), (1, True, "ana@example.com")]
    assert [(r["by"], r["asked"]) for r in o["policy_changes_refused"]] == [
        ("bob@example.com", {"held_until_verified": False})]
    shown = o["shown_before_verification"]
    assert (shown["answers_with_claims"], shown["shown_unverified_ids"], shown["held_from_readers_ids"],
            shown["verified_when_asked"]) == (3, [1], [2], 1)
    assert o["sources_lost"]["verified_now"] == 2 and o["sources_lost"]["source_changed"] == 0
    assert o["estimate"]["unsupported_share"] is None and o["estimate"]["reason"]
    report = files["report.html"].decode("utf-8")
    for words in ("Oversight report", "group support-leads", "<b>1</b> were shown to whoever asked before any reviewer "
                  "verified them", "1 were asked while answers were held until verified",
                  "The review policy in force over time", "No estimate:"):
        assert words in report, words
    # a changed byte of the report's data is caught like any other file's
    body = bytearray(files["oversight.json"])
    body[body.index(b"support-leads")] = ord("S")
    forged = io.BytesIO()
    with zipfile.ZipFile(forged, "w") as z:
        for name, data in {**files, "oversight.json": bytes(body)}.items():
            z.writestr(name, data)
    assert verify_pack(forged.getvalue(), key).failures == (
        "changed: oversight.json does not match its SHA-256 in the manifest",)


def test_a_verified_answer_whose_source_changed_is_counted(record: Store, tmp_path: Path) -> None:
    write_version(record, ["Snapshot exports remain available for 7 days."])
    pack = export_pack(record, by=ANA, config_home=tmp_path / "config")
    o = json.loads(members(pack.data)["oversight.json"])
    assert 1 in o["sources_lost"]["source_changed_ids"]
    assert "a newer version of its document changed or dropped" in members(pack.data)["report.html"].decode()


def test_a_local_pack_from_the_command_line_says_who_may_review_and_verifies(record: Store, store_url: str,
                                                                             tmp_path: Path, capsys,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # a PostgreSQL store's key is kept under the exporter's home
    monkeypatch.chdir(tmp_path)  # no access.toml here: local mode, no policy at hand
    out = tmp_path / "p.zip"
    assert main(["export", "--format", "pack", "--out", str(out), "--store", store_url]) == 0
    report = members(out.read_bytes())["report.html"].decode("utf-8")
    assert "Exported in local mode, with no access policy at hand" in report
    capsys.readouterr()
    assert main(["pack", "key", "--store", store_url]) == 0
    key = capsys.readouterr().out.strip().split()[-1]
    assert main(["pack", "verify", str(out), "--key", key]) == 0
