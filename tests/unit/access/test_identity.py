"""The access policy: claims to labels and roles, unknown users, malformed files, the role check,
the team-mode configuration check and the folders a server-side ingest may read (no models)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphrag.access.deployment import allowed_path, auth_problems, cached_policy, deployment, ingest_roots
from graphrag.access.identity import (
    Forbidden,
    Identity,
    PolicyError,
    Viewer,
    identity_from_claims,
    load_policy,
    parse_policy,
    require,
)
from graphrag.config import Config, ConfigError
from graphrag.errors import InputError

pytestmark = pytest.mark.unit  # no model, server or browser

POLICY = """
issuers = ["https://idp.example"]

[[grant]]
email = "Ana@Example.com"
labels = ["public", "internal"]
role = "admin"

[[grant]]
domain = "example.com"
labels = ["public"]
role = "reviewer"

[[grant]]
group = "finance"
labels = ["finance"]
"""


def who(sub: str = "u1", email: str | None = None, groups: tuple[str, ...] = (),
        iss: str = "https://idp.example") -> Identity:
    return Identity(sub, email, frozenset(groups), iss)


def test_rules_add_labels_and_the_highest_role_wins() -> None:
    p = parse_policy(POLICY)
    ana = p.grant(who(email="ana@example.com", groups=("finance",)))
    assert ana.labels == {"public", "internal", "finance"} and ana.role == "admin"
    bob = p.grant(who(email="bob@example.com"))
    assert bob.labels == {"public"} and bob.role == "reviewer"
    cat = p.grant(who(email="cat@other.org", groups=("finance",)))
    assert cat.labels == {"finance"} and cat.role == "viewer"


def test_unknown_users_get_public_viewer_or_nothing_if_the_policy_says_so() -> None:
    stranger = who(email="eve@elsewhere.net")
    g = parse_policy(POLICY).grant(stranger)
    assert g.labels == {"public"} and g.role == "viewer"
    closed = parse_policy(POLICY + "\n[unknown]\nlabels = []\n")
    assert not closed.grant(stranger).allowed and closed.grant(stranger).labels == frozenset()


def test_another_issuer_or_no_identity_gets_nothing() -> None:
    p = parse_policy(POLICY)
    assert not p.grant(who(email="ana@example.com", iss="https://evil.example")).allowed
    assert not p.grant(None).allowed


def test_claims_to_identity_ignores_an_unverified_email() -> None:
    base = {"sub": "s1", "iss": "https://idp.example", "groups": ["finance"]}
    ok = {**base, "email": "Ana@Example.com", "email_verified": True}
    assert identity_from_claims(ok).email == "ana@example.com"
    unverified = identity_from_claims({**base, "email": "ana@example.com", "email_verified": False})
    assert unverified.email is None
    assert not parse_policy(POLICY).grant(unverified).labels & {"internal"}
    assert identity_from_claims({"email": "x@y.z"}) is None  # no subject: no identity
    assert identity_from_claims({**base, "groups": "finance"}).groups == {"finance"}


MISSING = object()
DOMAIN_ONLY = """
issuers = ["https://idp.example", "https://entra.example"]
[unknown]
labels = []
[[grant]]
domain = "example.com"
labels = ["public", "internal"]
"""


@pytest.mark.parametrize("flag, counts", [
    (MISSING, False), ("false", False), ("true", False), (False, False), (None, False), (1, False), ("", False),
    (True, True),
])
def test_only_the_boolean_true_verifies_an_email_for_a_domain_grant(flag: object, counts: bool) -> None:
    """A provider that omits ``email_verified`` or sends it as a string vouches for nothing: the domain
    grant is not given on an address anyone could have typed."""
    claims = {"sub": "eve", "iss": "https://idp.example", "email": "eve@example.com"}
    if flag is not MISSING:
        claims["email_verified"] = flag
    policy = parse_policy(DOMAIN_ONLY)
    me = policy.identity(claims)
    assert (me.email == "eve@example.com") is counts
    assert policy.grant(me).allowed is counts
    assert (policy.grant(me).labels == {"public", "internal"}) is counts


@pytest.mark.parametrize("flag, counts", [
    (MISSING, True), (True, True), ("true", True), (False, False), ("false", False), (" FALSE ", False),
])
def test_a_policy_can_vouch_for_one_issuers_emails(flag: object, counts: bool) -> None:
    """``email_verified_issuers`` names the issuers whose emails are verified without the claim (such
    providers send none); a token that itself says false is still refused, and other issuers keep the
    strict rule."""
    policy = parse_policy('email_verified_issuers = ["https://entra.example"]\n' + DOMAIN_ONLY)
    claims = {"sub": "ana", "iss": "https://entra.example", "email": "ana@example.com"}
    if flag is not MISSING:
        claims["email_verified"] = flag
    assert policy.grant(policy.identity(claims)).allowed is counts
    other = {**claims, "iss": "https://idp.example"}
    assert policy.grant(policy.identity(other)).allowed is (flag is True)


@pytest.mark.parametrize("text, fault", [
    ('email_verified_issuers = "https://idp.example"\n', "email_verified_issuers must be a list of non-empty strings"),
    ('issuers = ["https://idp.example"]\nemail_verified_issuers = ["https://idp.exmaple"]\n',
     "email_verified_issuers names https://idp.exmaple, which is not in issuers"),
    ('email_verfied_issuers = ["https://idp.example"]\n', "unknown key(s) email_verfied_issuers"),
])
def test_a_malformed_email_verified_issuers_key_is_refused(text: str, fault: str) -> None:
    with pytest.raises(PolicyError) as exc:
        parse_policy(text, "access.toml")
    assert fault in str(exc.value)


@pytest.mark.parametrize("text, fault", [
    ("[[grant]]\nemail = 'a@b.c'\nlables = ['x']\n", "unknown key(s) lables"),
    ("[[grant]]\nemail = 'a@b.c'\ngroup = 'g'\nlabels = ['x']\n", "exactly one of email, domain or group"),
    ("[[grant]]\nlabels = ['x']\n", "exactly one of email, domain or group"),
    ("[[grant]]\nemail = 'a@b.c'\nlabels = ['x']\nrole = 'owner'\n", "role must be one of viewer, reviewer, adjudicator, admin"),
    ("[[grant]]\nemail = 'a@b.c'\nlabels = []\n", "a rule must grant at least one label"),
    ("[[grant]]\nemail = 'a@b.c'\n", "needs labels"),
    ("[[grant]]\nemail = 'not-an-address'\nlabels = ['x']\n", "is not an email address"),
    ("[[grant]]\nemail = 'a@b.c'\nlabels = 'public'\n", "must be a list of non-empty strings"),
    ("grant = 3\n", "[[grant]] tables"),
    ("[unknown]\nlabels = ['public']\nrole = 'boss'\n", "role must be one of"),
    ("admins = ['a@b.c']\n", "unknown key(s) admins"),
    ("[[grant]\n", "not valid TOML"),
])
def test_a_malformed_policy_is_refused_with_the_fault(text: str, fault: str) -> None:
    with pytest.raises(PolicyError, match=r"access\.toml") as exc:
        parse_policy(text, "access.toml")
    assert fault in str(exc.value)


def test_a_missing_policy_file_is_a_policy_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="does not exist"):
        load_policy(tmp_path / "access.toml")


def test_require_raises_forbidden_below_the_role() -> None:
    viewer = Viewer(who(email="v@example.com"), frozenset({"public"}), "viewer", team=True)
    require(viewer, "viewer")
    with pytest.raises(Forbidden, match=r"v@example\.com may not record a verdict: that needs the reviewer role"):
        require(viewer, "reviewer", "record a verdict")
    admin = Viewer(who(), frozenset({"public"}), "admin", team=True)
    require(admin, "reviewer")
    nobody = Viewer(who(), frozenset(), None, team=True)
    with pytest.raises(Forbidden):
        require(nobody, "viewer")


def test_the_policy_is_read_again_when_the_file_changes(tmp_path: Path) -> None:
    f = tmp_path / "access.toml"
    f.write_text(POLICY, encoding="utf-8")
    ana = who(email="ana@example.com")
    assert cached_policy(f).grant(ana).role == "admin"
    f.write_text(POLICY.replace('email = "Ana@Example.com"', 'email = "zed@example.com"'), encoding="utf-8")
    os.utime(f, ns=(1, 1))  # a new mtime even within the filesystem's clock resolution
    assert cached_policy(f).grant(ana).role == "reviewer"


def test_team_mode_names_everything_missing(tmp_path: Path) -> None:
    team = Config.from_env({"GRAPHRAG_MODE": "team", "GRAPHRAG_ACCESS_POLICY": str(tmp_path / "access.toml")})
    d = deployment(team)
    assert d.team and any("no [auth] section" in p for p in d.problems)
    assert any("access.toml does not exist" in p for p in d.problems)
    auth = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "short",
            "client_id": "graphrag", "server_metadata_url": "http://127.0.0.1:1/.well-known/openid-configuration"}
    (tmp_path / "access.toml").write_text("[[grant]]\nemail = 'a@b.c'\nlables = ['x']\n", encoding="utf-8")
    problems = deployment(team, auth).problems
    assert any("client_secret is missing" in p for p in problems)
    assert any("cookie_secret is shorter than 32" in p for p in problems)
    assert any("unknown key(s) lables" in p for p in problems)
    (tmp_path / "access.toml").write_text(POLICY, encoding="utf-8")
    ok = deployment(team, {**auth, "cookie_secret": "x" * 40, "client_secret": "s"})
    assert ok.team and ok.problems == ()
    named = deployment(team, {"redirect_uri": auth["redirect_uri"], "cookie_secret": "x" * 40,
                              "idp": {k: auth[k] for k in ("client_id", "server_metadata_url")}})
    assert list(named.problems) == ["[auth] client_secret is missing from .streamlit/secrets.toml"]
    with pytest.raises(ConfigError, match=r"GRAPHRAG_MODE is 'tem'.*must be 'local' or 'team'"):
        Config.from_env({"GRAPHRAG_MODE": "tem"})  # a typo is refused (the dashboard then serves nothing)


def test_local_mode_is_the_default() -> None:
    local = deployment(Config.from_env({}))
    assert not local.team and local.problems == ()
    assert auth_problems(None)


def test_ingest_paths_outside_the_roots_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "allowed"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("A.", encoding="utf-8")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.md").write_text("KEY", encoding="utf-8")
    (root / "link").symlink_to(secret)
    (root / "keylink.md").symlink_to(secret / "key.md")
    roots = (root.resolve(),)
    assert allowed_path(str(root / "docs"), roots) == (root / "docs").resolve()
    assert allowed_path(str(root / "docs" / "a.md"), roots).name == "a.md"
    for bad in (str(root / "docs" / ".." / ".." / "secret"), str(root / "link"), str(root / "link" / "key.md"),
                str(root / "keylink.md"), str(secret), "/etc/passwd", str(tmp_path / "allowed-not")):
        with pytest.raises(InputError, match="outside the folders this dashboard may read"):
            allowed_path(bad, roots)
    with pytest.raises(InputError, match="turned off"):
        allowed_path(str(root), ())
    both = os.pathsep.join([str(root), str(secret)])
    assert ingest_roots(Config.from_env({"GRAPHRAG_MODE": "team", "GRAPHRAG_INGEST_ROOTS": both})) == (
        root.resolve(), secret.resolve())
    assert ingest_roots(Config.from_env({"GRAPHRAG_MODE": "team"})) == ()
    assert Path.cwd().resolve() in ingest_roots(Config.from_env({}))


def test_the_example_policy_in_the_repository_parses() -> None:
    p = load_policy(Path(__file__).resolve().parents[3] / "access.example.toml")
    assert p.grant(who(email="ana@example.com", iss="https://login.example.com")).role == "admin"
    assert not p.grant(who(email="ana@example.com", iss="https://other.example")).allowed
    assert p.grant(Identity("x", "lee@example.com", frozenset({"support-leads"}), "https://login.example.com")).labels \
        == {"public", "internal"}
