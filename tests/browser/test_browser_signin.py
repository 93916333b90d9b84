"""Team mode in Chromium against a real OpenID Connect provider (oidc-provider-mock, on 127.0.0.1):
Streamlit's own st.login signs two users in with different groups; each sees only what the policy
grants in answers, the review queue and the graph page; a viewer has no verdict buttons; a
verdict and the export carry the signed-in identity. Tampering: a session cookie signed with
another secret, a user removed from the policy while signed in, the provider down at sign-in."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app_helpers import (
    ROOT,
    ask_in_browser,
    chromium,
    copy_store,
    free_port,
    require_chromium,
    shown_as,
    streamlit_server,
    visible_text,
    wait_for_app_run,
)
from graphrag.store import Store

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.model]
require_chromium()
sync_api = pytest.importorskip("playwright.sync_api")
oidc = pytest.importorskip("oidc_provider_mock", reason="pip install -r requirements-dev.txt")
werkzeug_serving = pytest.importorskip("werkzeug.serving")

ARTIFACTS = ROOT / "test-artifacts"
COOKIE_SECRET = "test-cookie-secret-" + "9" * 32
QUESTION = "Which cluster replicates snapshots within four hours?"
POLICY = """
issuers = ["{issuer}"]

[unknown]
labels = []

[[grant]]
group = "ops"
labels = ["public", "internal"]
role = "admin"

[[grant]]
email = "bob@example.com"
labels = ["public"]
role = "viewer"
"""


@pytest.fixture
def provider() -> Iterator[tuple[str, werkzeug_serving.BaseWSGIServer]]:
    """The identity provider: two predefined users, Ana in the ops group, Bob in none."""
    users = [oidc.User(sub="sub-ana", claims={"email": "ana@example.com", "email_verified": True, "groups": ["ops"]}),
             oidc.User(sub="sub-bob", claims={"email": "bob@example.com", "email_verified": True, "groups": []})]
    server = werkzeug_serving.make_server("127.0.0.1", free_port(), oidc.app(user_claims=users, require_nonce=True),
                                          threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", server
    finally:
        server.shutdown()  # returns at once if the test stopped it already
        thread.join(10)
        server.server_close()


def sign_in(page, base: str, sub: str, email: str) -> None:  # a Playwright Page
    page.goto(base)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r".*/oauth2/authorize.*"))
    page.get_by_role("button", name=sub, exact=True).click()  # the provider's "predefined user" button
    page.wait_for_url(re.compile(re.escape(base) + r"/?$"))
    wait_for_app_run(page)
    page.get_by_test_id("stSidebar").get_by_text(shown_as(f"{email} · role")).wait_for()


def download(page, button: str) -> str:  # a Playwright Page
    """The text of a deferred download. A click landing while the page reruns is lost by the frontend
    (the button it belonged to is replaced), so a click that brings nothing is tried again."""
    for attempt in range(3):
        wait_for_app_run(page)
        try:
            with page.expect_download(timeout=30_000) as dl:
                page.get_by_role("button", name=button).click()
            return Path(dl.value.path()).read_text(encoding="utf-8")
        except sync_api.TimeoutError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _proxy(who: str, sent: dict[str, list[bytes]], upstream: dict[str, object]):
    def handler(ws) -> None:  # a Playwright WebSocketRoute
        server = ws.connect_to_server()
        upstream[who] = server  # the page's latest connection

        def up(message: bytes | str) -> None:
            sent[who].append(message)
            server.send(message)

        ws.on_message(up)
        server.on_message(lambda message: ws.send(message))

    return handler


def signed_cookie(secret: str, payload: dict[str, object], age_days: float = 0) -> str:
    """A session cookie as Streamlit signs it (itsdangerous, the cookie name as salt), signed
    ``age_days`` ago."""
    import time

    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    class Then(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time() - age_days * 86400)

    return URLSafeTimedSerializer(secret, salt="_streamlit_user", signer=Then).dumps(json.dumps(payload))


def test_two_users_sign_in_and_each_sees_and_does_what_the_policy_grants(
        provider, tiny_store: Path, tmp_path: Path) -> None:
    issuer, server = provider
    store = copy_store(tiny_store, tmp_path / "store.db")
    policy = tmp_path / "access.toml"
    policy.write_text(POLICY.format(issuer=issuer), encoding="utf-8")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f"""[auth]
redirect_uri = "{base}/oauth2callback"
cookie_secret = "{COOKIE_SECRET}"
client_id = "graphrag-test"
client_secret = "not-checked-by-the-mock"
server_metadata_url = "{issuer}/.well-known/openid-configuration"
""", encoding="utf-8")
    env = {"GRAPHRAG_MODE": "team", "GRAPHRAG_ACCESS_POLICY": str(policy)}
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(store, tmp_path / "server.log", sample=False, env=env, secrets=secrets, port=port), \
            sync_api.sync_playwright() as pw:
        browser = chromium(pw)
        ana_ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
        bob_ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
        ana, bob = ana_ctx.new_page(), bob_ctx.new_page()
        # Each page's websocket to the server goes through a proxy here: what the browser sends is kept,
        # and a message can be sent on a connection as if the browser sent it (a replay).
        sent: dict[str, list[bytes]] = {"ana": [], "bob": []}
        upstream: dict[str, object] = {}
        for who, p in (("ana", ana), ("bob", bob)):
            p.set_default_timeout(120_000)
            p.route_web_socket(re.compile(r".*/_stcore/stream.*"), _proxy(who, sent, upstream))

        # Signed out: only the sign-in page, nothing of the store.
        bob.goto(base)
        bob.get_by_role("button", name="Sign in").wait_for()
        assert "Data exports" not in bob.content() and "SQLite file" not in bob.inner_text("body")

        sign_in(ana, base, "sub-ana", "ana@example.com")
        sign_in(bob, base, "sub-bob", "bob@example.com")
        assert "role admin · labels internal, public" in ana.get_by_test_id("stSidebar").inner_text()
        assert "role viewer · labels public" in bob.get_by_test_id("stSidebar").inner_text()
        for p in (ana, bob):  # no label filter and no typed reviewer name in team mode
            side = p.get_by_test_id("stSidebar")
            assert side.get_by_label("Reviewer name").count() == 0
            assert side.get_by_text("Access labels (what the asker may see)").count() == 0

        # The same question: Ana's answer draws on the internal notes, Bob's cannot.
        ask_in_browser(ana, QUESTION)
        ask_in_browser(bob, QUESTION)
        assert "Zephyr" in ana.inner_text("body")
        assert "Zephyr" not in bob.inner_text("body")
        ana.screenshot(path=str(ARTIFACTS / "team-signin-ana-ask.png"))

        # The review queue: Bob reads, has no verdict buttons, and never sees Ana's internal answer.
        for p in (ana, bob):
            p.goto(f"{base}/review")
            p.get_by_text("Claim 1 of", exact=False).wait_for()
            wait_for_app_run(p)
        assert bob.locator(".st-key-rv_supported button").count() == 0  # the yes button: "Answers" or "Backed"
        assert bob.get_by_text("needs the reviewer role", exact=False).count() == 1
        assert bob.get_by_role("button", name="CSV").count() == 0
        bob.get_by_test_id("stSelectbox").first.click()
        options = bob.get_by_role("option").all_inner_texts()
        bob.keyboard.press("Escape")
        assert options and not any("#1:" in o for o in options), options  # answer 1 is Ana's internal one
        assert "Zephyr" not in bob.content()
        bob.screenshot(path=str(ARTIFACTS / "team-signin-bob-review.png"))

        # Ana's verdict names her signed-in identity, in the store and in her export.
        before = len(sent["ana"])
        ana.locator(".st-key-rv_supported button").click()  # the yes button: "Answers" or "Backed"
        ana.get_by_text("Recorded", exact=False).wait_for()
        wait_for_app_run(ana)
        with Store(store) as s:
            v = s.verdicts()[-1]
            assert (v.reviewer, v.subject, v.email) == ("ana@example.com", "sub-ana", "ana@example.com")
        click = [m for m in sent["ana"][before:] if isinstance(m, bytes)]
        assert click, "the click's message to the server was not seen"

        # Bob replays Ana's click on his own connection: his session has no verdict action to run.
        for m in click:
            upstream["bob"].send(m)
        bob.wait_for_timeout(2000)
        wait_for_app_run(bob)
        with Store(store) as s:
            assert len(s.verdicts()) == 1 and all(x.email != "bob@example.com" for x in s.verdicts())
        # The same bytes on Ana's connection do record a verdict: the replay itself works.
        for m in click:
            upstream["ana"].send(m)
        ana.wait_for_timeout(2000)
        wait_for_app_run(ana)
        with Store(store) as s:
            assert [x.email for x in s.verdicts()] == ["ana@example.com", "ana@example.com"]
        csv_text = download(ana, "CSV")
        assert "sub-ana" in csv_text and "ana@example.com" in csv_text
        ana.goto(f"{base}/record")
        wait_for_app_run(ana)
        audit_csv = download(ana, "Audit log (CSV)")
        assert "sign-in,sub-bob,bob@example.com" in audit_csv and "verdict,sub-ana,ana@example.com" in audit_csv
        bob.goto(f"{base}/record")
        wait_for_app_run(bob)
        assert bob.get_by_role("button", name="Audit log (CSV)").count() == 0

        # The graph page: the internal entity is Ana's to find, not Bob's.
        for p, found in ((ana, True), (bob, False)):
            p.goto(f"{base}/graph")
            wait_for_app_run(p)
            box = p.get_by_label("Find an entity", exact=True)
            box.fill("zephyr")
            box.press("Enter")
            wait_for_app_run(p)
            assert (p.get_by_text("No visible entity matches", exact=False).count() == 0) == found

        # A cookie signed with another secret, or signed right 40 days ago (past the cookie's 30), is no
        # sign-in; the same claims signed right today are (so each is refused for its signature or age,
        # not for its shape).
        claims = {"sub": "sub-ana", "email": "ana@example.com", "email_verified": True, "groups": ["ops"], "iss": issuer,
                  "origin": base, "is_logged_in": True, "provider": "default"}
        for secret, age, signed_in in (("another-secret-" + "x" * 32, 0, False), (COOKIE_SECRET, 40, False),
                                       (COOKIE_SECRET, 0, True)):
            ctx = browser.new_context()
            ctx.add_cookies([{"name": "_streamlit_user", "value": signed_cookie(secret, claims, age), "url": base}])
            p = ctx.new_page()
            p.set_default_timeout(120_000)
            p.goto(base)
            wait_for_app_run(p)
            if signed_in:
                p.get_by_test_id("stSidebar").get_by_text(shown_as("ana@example.com · role admin")).wait_for()
            else:
                p.get_by_role("button", name="Sign in").wait_for()
                assert "ana@example.com" not in visible_text(p.inner_text("body"))
            ctx.close()

        # Bob is removed from the policy while signed in: his next rerun has no access.
        policy.write_text(POLICY.format(issuer=issuer).split("[[grant]]\nemail")[0], encoding="utf-8")
        bob.reload()
        bob.get_by_text("grants you nothing", exact=False).wait_for()
        assert "Claim 1 of" not in bob.inner_text("body")

        # Signing out ends the session (through the provider's end-session page when it has one).
        ana.goto(base)
        wait_for_app_run(ana)
        ana.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
        ana.wait_for_url(re.compile(r".*/oauth2/end_session.*"))  # the provider names an end-session endpoint
        ana.get_by_role("button", name="End session").click()
        ana.get_by_role("button", name="Sign in").wait_for()
        assert "ana@example.com" not in visible_text(ana.inner_text("body"))

        # The provider is down at sign-in: a clear message on the page, and the app keeps serving.
        server.shutdown()
        ctx = browser.new_context()
        p = ctx.new_page()
        p.set_default_timeout(120_000)
        p.goto(base)
        p.get_by_role("button", name="Sign in").click()
        p.get_by_text("does not answer", exact=False).wait_for()
        wait_for_app_run(p)
        assert "sign-in is not possible now" in p.inner_text("body")
        p.screenshot(path=str(ARTIFACTS / "team-signin-provider-down.png"))
        ctx.close()
        browser.close()
    with Store(store) as s:
        events = [(e.event, e.email) for e in s.audit()]
    # one event per sign-in, however many pages and reloads (each a new session) followed it; Ana's second
    # is the control cookie above, a session of its own
    assert events.count(("sign-in", "bob@example.com")) == 1 and events.count(("sign-in", "ana@example.com")) == 2
    assert ("verdict", "ana@example.com") in events and ("export", "ana@example.com") in events
