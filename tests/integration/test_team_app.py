"""Team mode through AppTest (the real app.py, st.user seeded as Streamlit's sign-in would leave it):
configuration refused until complete, labels and role from the policy, each page and action
checking the role, the policy re-read on every rerun. The browser tests with a real OpenID
Connect provider are in test_browser_signin.py."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import OIDC_ISSUER, ROOT, TEAM_AUTH, app, copy_store, ok, page, signed_in, team_mode, texts
from dashboard import jobs
from graphrag.answer.ask import Asker
from graphrag.ingest.pipeline import IngestReport
from graphrag.model import AskSettings
from graphrag.store import Store
from graphrag.verify.review import record_verdict
from graphrag.verify.status import review_policy

pytestmark = [pytest.mark.model, pytest.mark.slow]

POLICY = """
[[grant]]
email = "ana@example.com"
labels = ["public", "internal"]
role = "admin"

[[grant]]
group = "reviewers"
labels = ["public"]
role = "reviewer"

[[grant]]
email = "bob@example.com"
labels = ["public"]

[[grant]]
email = "dan@example.com"
labels = ["public"]
role = "admin"
"""
PUBLIC_Q = "How long do snapshot exports remain available after an account is cancelled?"
INTERNAL_Q = "Which cluster replicates snapshots?"


ANA = signed_in("ana@example.com")
BOB = signed_in("bob@example.com")
CAT = signed_in("cat@example.com", groups=("reviewers",))
DAN = signed_in("dan@example.com")  # an admin whose labels are narrower than the internal documents'


@pytest.fixture(scope="module")
def answered(tiny_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny handbook with one public answer and one that draws on the internal ops notes."""
    path = copy_store(tiny_store, tmp_path_factory.mktemp("team") / "store.db")
    with Store(path) as s:
        asker = Asker(s)
        asker.ask(PUBLIC_Q, AskSettings(access=("public",)))
        asker.ask(INTERNAL_Q, AskSettings(access=("internal",)))
    return path


@pytest.fixture
def team(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, answered: Path):
    policy = tmp_path / "access.toml"
    policy.write_text(POLICY, encoding="utf-8")
    store = copy_store(answered, tmp_path / "store.db")

    def make(who: dict[str, object] | None, secrets: dict[str, object] | None = None,
             page_script: str | None = None):
        at = app(monkeypatch, store)
        if page_script:
            at = AppTest.from_file(str(ROOT / page_script), default_timeout=240)
        monkeypatch.delenv("GRAPHRAG_INGEST_ROOTS")
        return team_mode(monkeypatch, at, policy, who, secrets)

    make.policy = policy
    make.store = store
    return make


def errors(at) -> str:
    return " ".join(texts(at.error)).replace("\\", "")  # the page escapes Markdown in what it shows


def everything(at) -> str:
    return " ".join(texts(at.markdown) + texts(at.caption) + texts(at.error) + texts(at.info) + texts(at.title)
                    + texts(at.sidebar.caption) + texts(at.sidebar.markdown))


def test_team_mode_without_auth_config_serves_nothing_and_says_what_is_missing(team) -> None:
    at = ok(team(ANA, secrets={"auth": {"redirect_uri": TEAM_AUTH["redirect_uri"], "cookie_secret": "short"}}))
    err = errors(at)
    assert "Team mode is not configured" in err
    for missing in ("client_id is missing", "client_secret is missing", "server_metadata_url is missing",
                    "cookie_secret is shorter than 32"):
        assert missing in err, err
    assert not at.sidebar.caption and not at.button  # no store, no pages, no sign-in
    team.policy.unlink()
    at = ok(team(ANA))
    assert "access.toml does not exist" in errors(at)


def test_signed_out_visitors_see_only_the_sign_in_page(team) -> None:
    at = ok(team(None))
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.sidebar.caption and "Data exports" not in everything(at)


def test_a_viewer_sees_public_answers_reads_and_cannot_judge_or_ingest(team) -> None:
    at = ok(team(BOB))
    side = " ".join(texts(at.sidebar.caption)).replace("\\", "")
    assert "bob@example.com · role viewer · labels public" in side
    assert not at.sidebar.multiselect and not at.sidebar.text_input  # no label filter, no typed reviewer name
    at = page(at, "review")
    assert {str(o) for o in at.selectbox(key="review_answer_filter").options} >= {"All answers"}
    questions = " ".join(str(o) for o in at.selectbox(key="review_answer_filter").options)
    assert "snapshot exports" in questions and "cluster" not in questions  # only the public answer
    assert not [b for b in at.button if b.key and b.key.startswith("rv_") and b.key not in ("rv_prev", "rv_next")]
    assert "needs the reviewer role" in everything(at)
    assert not list(at.get("download_button"))  # exports are an admin's
    with pytest.raises(ValueError, match="Could not find a navigation page"):  # not in a viewer's navigation
        page(at, "ingest")
    alone = ok(team(BOB, page_script="views/ingest.py"))  # the page run by itself still refuses
    assert "may not ingest documents: that needs the admin role" in errors(alone)
    assert not alone.get("file_uploader")
    at = page(at, "record")
    assert not [b for b in at.button if b.key in ("record_save_policy", "record_refit")]


def sidebar_counts(at) -> dict[str, int]:
    """The sidebar's store counts by kind (document, version, entit, relation, answer, verdict)."""
    line = next(c for c in texts(at.sidebar.caption) if "verdict" in c and "document" in c)
    found = re.findall(r"(\d+) (document|version|entit|relation|answer|verdict)", line)
    return {kind: int(n) for n, kind in found}


def test_the_sidebar_counts_only_what_the_viewer_may_see(team) -> None:
    """A public viewer's counts say nothing of the internal document, its entities, the internal
    question or the verdict on it; an admin holding both labels counts everything."""
    with Store(team.store) as s:
        internal = s.answer(next(a["id"] for a in s.answer_ids() if "cluster" in a["question"]))
        claim = internal.claims[0]
        record_verdict(s, internal, claim, claim.citations[0] if claim.citations else None, "supported",
                       "ana@example.com")
        whole = s.counts()
        public = [d for d in s.documents(include_superseded=False) if "public" in d.access]
    bob, ana = sidebar_counts(ok(team(BOB))), sidebar_counts(ok(team(ANA)))
    assert bob["document"] == len(public) == whole["documents"] - 1  # the ops notes are internal
    assert ana["document"] == whole["documents"] and ana["version"] == whole["versions"]
    assert bob["entit"] < ana["entit"] == whole["entities"]  # Zephyr is named only internally
    assert bob["relation"] <= ana["relation"] == whole["relations"]
    assert (bob["answer"], bob["verdict"]) == (1, 0)
    assert (ana["answer"], ana["verdict"]) == (2, 1)


@contextmanager
def upload_running(store: Path) -> Iterator[None]:
    """An upload started by another session, running on the server's job runner until the block ends."""
    release = threading.Event()

    def work(progress) -> IngestReport:
        release.wait(120)
        return IngestReport(())

    jobs.job_runner(str(store)).submit("Upload of 4 files", work, owner="an-admins-session")
    try:
        yield
    finally:
        release.set()


def progress_lines(at) -> list[str]:
    return [p.proto.text for p in at.sidebar.get("progress")]


def test_another_sessions_ingest_is_not_in_a_team_members_sidebar(team) -> None:
    """A running ingest is activity too: its progress line stays with the session that started it."""
    with upload_running(team.store):
        for who in (BOB, ANA):
            assert progress_lines(ok(team(who))) == []


def test_locally_the_one_person_sees_every_running_ingest(team, monkeypatch: pytest.MonkeyPatch) -> None:
    with upload_running(team.store):  # the same job as above, seen in local mode: the runner is the app's
        assert any("Upload of 4 files" in line for line in progress_lines(ok(app(monkeypatch, team.store))))


def test_a_reviewer_verdict_carries_the_signed_in_identity_and_is_audited(team) -> None:
    at = page(ok(team(CAT)), "review")
    at = ok(at.button(key="rv_supported").click())
    with Store(team.store) as s:
        v = s.verdicts()[-1]
        assert (v.reviewer, v.subject, v.email) == ("cat@example.com", "sub-cat", "cat@example.com")
        events = [(e.event, e.email) for e in s.audit()]
    assert ("sign-in", "cat@example.com") in events and ("verdict", "cat@example.com") in events


def test_the_record_pages_admin_actions_are_audited_as_the_dashboards(team) -> None:
    at = page(ok(team(ANA)), "record")
    at = ok(at.number_input(key="record_required").set_value(2))
    at = ok(at.button(key="record_save_policy").click())
    at = ok(at.button(key="record_refit").click())  # refused (too few verdicts): audited all the same
    with Store(team.store) as s:
        assert review_policy(s).required == 2
        events = [(e.event, e.email, e.detail["via"], e.detail["mode"]) for e in s.audit()]
    assert [e for e in events if e[0] in ("review-policy", "checker-refit")] == [
        ("review-policy", "ana@example.com", "dashboard", "team"), ("checker-refit", "ana@example.com", "dashboard",
                                                                   "team")]


def test_a_role_taken_away_stops_the_next_click_and_removal_stops_the_next_rerun(team) -> None:
    at = page(ok(team(CAT)), "review")
    assert at.button(key="rv_supported")  # drawn while cat was a reviewer
    team.policy.write_text(POLICY.replace('role = "reviewer"', 'role = "viewer"'), encoding="utf-8")
    at = ok(at.button(key="rv_supported").click())  # the stale button's callback checks the role now
    assert "may not record a verdict: that needs the reviewer role" in errors(at)
    with Store(team.store) as s:
        assert s.verdicts() == []
    team.policy.write_text(POLICY.replace('group = "reviewers"', 'group = "former"') + "\n[unknown]\nlabels = []\n",
                           encoding="utf-8")
    at = ok(at)
    assert "grants you nothing" in errors(at) and not at.sidebar.caption


def test_an_identity_from_another_issuer_gets_nothing(team) -> None:
    team.policy.write_text(f'issuers = ["{OIDC_ISSUER}"]\n' + POLICY, encoding="utf-8")
    assert "role admin" in " ".join(texts(ok(team(ANA)).sidebar.caption))
    at = ok(team({**ANA, "iss": "https://evil.example"}))
    assert "grants you nothing" in errors(at) and not at.sidebar.caption


def test_an_admin_sees_internal_answers_exports_and_the_ingest_page(team) -> None:
    at = page(ok(team(ANA)), "review")
    questions = " ".join(str(o) for o in at.selectbox(key="review_answer_filter").options)
    assert "cluster" in questions and "snapshot exports" in questions
    assert {d.label for d in at.get("download_button")} >= {"CSV", "JSON"}
    at = page(at, "ingest")
    assert not at.error
    assert [str(o) for o in at.segmented_control(key="ingest_source").options] == ["Upload files"]  # no roots


def test_the_upload_form_offers_only_the_labels_an_admin_holds(team) -> None:
    """Before, the form offered every label in the store: a public admin could label an upload internal."""
    at = page(ok(team(DAN)), "ingest")
    assert list(at.multiselect(key="ingest_labels").options) == ["public"]
    assert at.multiselect(key="ingest_labels").value == ["public"]
    at = page(ok(team(ANA)), "ingest")
    assert list(at.multiselect(key="ingest_labels").options) == ["internal", "public"]


def test_the_ingest_page_reads_the_servers_disk_only_under_the_configured_roots(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_store: Path) -> None:
    root, secret = tmp_path / "root", tmp_path / "secret"
    root.mkdir()
    secret.mkdir()
    (secret / "key.md").write_text("# Key\n\nThe vault key is 7781-2231.\n", encoding="utf-8")
    (root / "link").symlink_to(secret)
    store = copy_store(tiny_store, tmp_path / "store.db")
    at = app(monkeypatch, store)  # local mode
    monkeypatch.setenv("GRAPHRAG_INGEST_ROOTS", str(root))
    at = page(ok(at), "ingest")
    for bad in (str(root / ".." / "secret"), str(root / "link"), str(secret / "key.md")):
        at = ok(at.segmented_control(key="ingest_source").set_value("Folder on this machine"))
        at = ok(at.text_input(key="ingest_folder").set_value(bad))
        at = ok(at.button(key="ingest_go").click())
        assert "outside the folders this dashboard may read" in errors(at), bad
    with Store(store) as s:
        assert all(d.id != "key" for d in s.documents()) and not s.audit()


def test_a_removal_names_the_signed_in_admin_and_a_demoted_admin_removes_nothing(team) -> None:
    def ready_to_remove(at):
        at = page(at, "ingest")
        at = ok(at.selectbox(key="remove_doc").select("faq"))
        assert at.text_input(key="remove_actor").value == "ana@example.com"  # not a typed name
        assert at.text_input(key="remove_actor").disabled
        at = ok(at.button(key="remove_preview").click())
        return ok(at.checkbox(key="remove_confirm").check())

    at = ready_to_remove(ok(team(ANA)))
    team.policy.write_text(POLICY.replace('role = "admin"', 'role = "reviewer"'), encoding="utf-8")
    at = ok(at.button(key="remove_go").click())  # drawn for an admin, clicked after the demotion
    # (the Ingest page is gone from a reviewer's navigation: the refusal waits in the session, unshown)
    assert "may not remove a document: that needs the admin role" in " ".join(at.session_state["remove_done"][1])
    with Store(team.store) as s:
        assert s.document("faq", 1) is not None and not s.removal_records()
    team.policy.write_text(POLICY, encoding="utf-8")
    at = ok(ready_to_remove(ok(team(ANA))).button(key="remove_go").click())
    with Store(team.store) as s:
        assert s.document("faq", 1) is None
        assert [r.actor for r in s.removal_records()] == ["ana@example.com"]
        assert ("remove", "ana@example.com") in [(e.event, e.email) for e in s.audit()]
