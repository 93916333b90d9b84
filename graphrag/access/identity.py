"""Who is asking, and what the deployment's access policy grants them.

In team mode the identity comes from the identity provider (OpenID Connect claims, read by the
dashboard) and the grant from a policy file the deployment owns (``access.toml``); nobody can
widen their labels or raise their role from the page. The policy maps claims to access labels
and a role::

    issuers = ["https://login.example.com"]   # optional: identities from other issuers get nothing
    groups_claim = "groups"                    # optional: the claim that lists a user's groups
    email_verified_issuers = []                # optional: issuers whose emails count as verified
                                               # without an ``email_verified: true`` claim

    [unknown]                 # a signed-in user no rule names; labels = [] grants nothing at all
    labels = ["public"]
    role = "viewer"

    [[grant]]
    email = "ana@example.com" # or domain = "example.com", or group = "finance"
    labels = ["public", "internal"]
    role = "admin"

Every rule that matches adds its labels; the highest role among them is the user's role.
Roles are ordered: ``viewer`` asks and reads, ``reviewer`` also records verdicts, ``adjudicator``
also settles disputed claims it took no part in, ``admin`` also ingests, exports the record, sets
the review policy and refits the checker (and, under blind review, sees every verdict).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag.errors import GraphRAGError
from graphrag.model import PUBLIC

ROLES = ("viewer", "reviewer", "adjudicator", "admin")  # each includes what the ones before it may do
VIEWER, REVIEWER, ADJUDICATOR, ADMIN = ROLES


class PolicyError(GraphRAGError):
    """The access policy file is missing or malformed; the message names the file and the fault."""


class Forbidden(GraphRAGError):
    """The signed-in user's role does not allow this action."""


@dataclass(frozen=True)
class Identity:
    """A signed-in person as the identity provider names them."""

    subject: str  # the provider's stable id for the person ("sub")
    email: str | None
    groups: frozenset[str]
    issuer: str  # "iss": which provider vouched for the claims

    @property
    def display(self) -> str:
        """How the person is named on the page and in the verification record."""
        return self.email or self.subject


def identity_from_claims(claims: Mapping[str, Any], groups_claim: str = "groups",
                         email_verified_issuers: Iterable[str] = ()) -> Identity | None:
    """An ``Identity`` from ID-token claims, or None without a subject.

    The email is used only when verified: the claim ``email_verified`` is the boolean true (a
    missing claim, ``"true"`` or ``"false"`` as strings, or anything else is not), or the token's
    issuer is one the policy lists in ``email_verified_issuers`` and the claim does not say false.
    Anyone can type any address into some providers' sign-up forms, and a domain grant would
    otherwise hand them the domain's labels.
    """
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub.strip():
        return None
    iss = claims.get("iss")
    issuer = iss if isinstance(iss, str) else ""
    email = claims.get("email")
    if not isinstance(email, str) or not email.strip() or not email_verified(claims, issuer, email_verified_issuers):
        email = None
    raw = claims.get(groups_claim) or ()
    groups = frozenset([raw] if isinstance(raw, str) else (str(g) for g in raw if isinstance(g, str | int)))
    return Identity(sub, email.strip().lower() if email else None, groups, issuer)


def email_verified(claims: Mapping[str, Any], issuer: str, vouched_issuers: Iterable[str] = ()) -> bool:
    """Whether the token's email counts as verified: ``email_verified`` is the boolean true, or
    ``issuer`` is vouched for by the policy and the claim does not say false (``false`` or ``"false"``)."""
    flag = claims.get("email_verified")
    if flag is True:
        return True
    if issuer and issuer in frozenset(vouched_issuers):
        said_false = flag is False or (isinstance(flag, str) and flag.strip().lower() == "false")
        return not said_false
    return False


@dataclass(frozen=True)
class Grant:
    """What a user may see and do: labels (empty: nothing) and a role (None: no access)."""

    labels: frozenset[str]
    role: str | None

    @property
    def allowed(self) -> bool:
        """Whether the grant gives any access: a role and at least one label."""
        return self.role is not None and bool(self.labels)


NOTHING = Grant(frozenset(), None)


def role_at_least(role: str | None, needed: str) -> bool:
    """Whether ``role`` ranks at least as high as ``needed``; an unknown ``needed`` is a ValueError."""
    if needed not in ROLES:
        raise ValueError(f"unknown role {needed!r}")
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


@dataclass(frozen=True)
class Viewer:
    """Who acts on this request, the one record every use case takes, for reads as for writes: their identity (None
    in local mode), the labels they may see, their role, and how they came in: signed in through the team's
    identity provider (``team``) or not at all (local mode), through which surface (``via``: VIA_CLI,
    VIA_DASHBOARD or VIA_PYTHON, kept in the audit log). Role checks are the use cases' (``require``)."""

    identity: Identity | None
    labels: frozenset[str]
    role: str | None
    team: bool = False  # team mode: identity and grant come from the deployment's sign-in
    via: str = "dashboard"  # the surface acting for them

    @property
    def name(self) -> str:
        """The identity's display name; empty in local mode."""
        return self.identity.display if self.identity else ""

    def may(self, role: str) -> bool:
        """Whether this viewer holds ``role`` or a higher one."""
        return role_at_least(self.role, role)


def require(viewer: Viewer, role: str, action: str = "do this") -> None:
    """Raise ``Forbidden`` unless ``viewer`` holds ``role`` or a higher one. Checked by the code
    that acts, whatever the page drew: a hidden button is not a permission."""
    if not viewer.may(role):
        who = viewer.name or "you"
        raise Forbidden(f"{who} may not {action}: that needs the {role} role "
                        f"(yours: {viewer.role or 'none'})")


@dataclass(frozen=True)
class Rule:
    """One policy rule: who it matches (an email, a domain or a group) and the labels and role it grants."""

    kind: str  # "email", "domain" or "group"
    value: str
    labels: frozenset[str]
    role: str

    def matches(self, who: Identity) -> bool:
        """Whether the rule names this identity: its group, exact email, or email domain."""
        if self.kind == "group":
            return self.value in who.groups
        if who.email is None:
            return False
        if self.kind == "email":
            return who.email == self.value
        return who.email.rpartition("@")[2] == self.value


@dataclass(frozen=True)
class Policy:
    """The access policy: its rules, the grant for signed-in users no rule names, and the issuers it trusts.
    """

    rules: tuple[Rule, ...]
    unknown: Grant = Grant(frozenset({PUBLIC}), VIEWER)
    issuers: frozenset[str] = frozenset()  # empty: any issuer the dashboard's sign-in accepts
    groups_claim: str = "groups"
    email_verified_issuers: frozenset[str] = frozenset()  # their emails count as verified without the claim
    source: str = field(default="", compare=False)

    def identity(self, claims: Mapping[str, Any]) -> Identity | None:
        """The identity in these ID-token claims, read with this policy's groups claim and email rule."""
        return identity_from_claims(claims, self.groups_claim, self.email_verified_issuers)

    def grant(self, who: Identity | None) -> Grant:
        """The union of every matching rule's labels with the highest of their roles; the
        ``unknown`` grant when none matches; nothing for no identity or a foreign issuer."""
        if who is None or (self.issuers and who.issuer not in self.issuers):
            return NOTHING
        hits = [r for r in self.rules if r.matches(who)]
        if not hits:
            return self.unknown
        labels = frozenset().union(*(r.labels for r in hits))
        role = max((r.role for r in hits), key=ROLES.index)
        return Grant(labels, role) if labels else NOTHING


_TOP_KEYS = {"issuers", "groups_claim", "email_verified_issuers", "unknown", "grant"}
_MATCH_KEYS = ("email", "domain", "group")


def parse_policy(text: str, source: str = "access policy") -> Policy:
    """A ``Policy`` from TOML text; ``PolicyError`` naming the fault otherwise (fail closed)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{source}: not valid TOML ({exc})") from None
    _no_unknown(data, _TOP_KEYS, source)
    issuers = _strings(data.get("issuers", []), f"{source}: issuers", allow_empty=True)
    groups_claim = data.get("groups_claim", "groups")
    if not isinstance(groups_claim, str) or not groups_claim:
        raise PolicyError(f"{source}: groups_claim must be a claim name")
    vouched = _strings(data.get("email_verified_issuers", []), f"{source}: email_verified_issuers", allow_empty=True)
    strangers = sorted(set(vouched) - set(issuers)) if issuers else []
    if strangers:  # a typo here would vouch for nobody, or for an issuer the policy refuses anyway
        raise PolicyError(f"{source}: email_verified_issuers names {', '.join(strangers)}, which is not in issuers")
    unknown = Grant(frozenset({PUBLIC}), VIEWER)
    if "unknown" in data:
        u = data["unknown"]
        if not isinstance(u, dict):
            raise PolicyError(f"{source}: [unknown] must be a table with labels (and role)")
        _no_unknown(u, {"labels", "role"}, f"{source}: [unknown]")
        labels = frozenset(_strings(u.get("labels", []), f"{source}: [unknown] labels", allow_empty=True))
        role = _role(u.get("role", VIEWER), f"{source}: [unknown]") if labels else None
        unknown = Grant(labels, role) if labels else NOTHING
    grants = data.get("grant", [])
    if not isinstance(grants, list):
        raise PolicyError(f"{source}: grant must be written as [[grant]] tables")
    rules = []
    for i, g in enumerate(grants, 1):
        where = f"{source}: grant {i}"
        if not isinstance(g, dict):
            raise PolicyError(f"{where} must be a table")
        _no_unknown(g, {*_MATCH_KEYS, "labels", "role"}, where)
        keys = [k for k in _MATCH_KEYS if k in g]
        if len(keys) != 1:
            raise PolicyError(f"{where} needs exactly one of email, domain or group (has: {', '.join(keys) or 'none'})")
        value = g[keys[0]]
        if not isinstance(value, str) or not value.strip():
            raise PolicyError(f"{where}: {keys[0]} must be a non-empty string")
        value = value.strip() if keys[0] == "group" else value.strip().lower().lstrip("@")
        if keys[0] == "email" and "@" not in value:
            raise PolicyError(f"{where}: {value!r} is not an email address")
        if "labels" not in g:
            raise PolicyError(f"{where} needs labels (a list of access labels)")
        labels = frozenset(_strings(g["labels"], f"{where}: labels", allow_empty=False))
        rules.append(Rule(keys[0], value, labels, _role(g.get("role", VIEWER), where)))
    return Policy(tuple(rules), unknown, frozenset(issuers), groups_claim, frozenset(vouched), source)


def load_policy(path: str | Path) -> Policy:
    """Read and validate the access policy file; a PolicyError says what is wrong and where."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PolicyError(f"access policy {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"access policy {p} cannot be read ({exc})") from None
    return parse_policy(text, str(p))


def _no_unknown(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:  # a typo ("lables") must not silently grant the default
        raise PolicyError(f"{where}: unknown key(s) {', '.join(extra)} (allowed: {', '.join(sorted(allowed))})")


def _strings(value: Any, where: str, *, allow_empty: bool) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PolicyError(f"{where} must be a list of non-empty strings")
    if not value and not allow_empty:
        raise PolicyError(f"{where} is empty: a rule must grant at least one label")
    return [v.strip() for v in value]


def _role(value: Any, where: str) -> str:
    if value not in ROLES:
        raise PolicyError(f"{where}: role must be one of {', '.join(ROLES)}, got {value!r}")
    return str(value)


VIA_CLI = "cli"
VIA_DASHBOARD = "dashboard"
VIA_PYTHON = "python"  # the library facade (``import graphrag``)
VIAS = (VIA_CLI, VIA_DASHBOARD, VIA_PYTHON)


def local_principal(labels: Iterable[str], *, via: str) -> Viewer:
    """Local mode: one person on their own machine, every action allowed, labels a local filter;
    ``via``: the command line (VIA_CLI), the dashboard (VIA_DASHBOARD) or the library (VIA_PYTHON), for the audit
    log."""
    if via not in VIAS:
        raise ValueError(f"via must be one of {', '.join(map(repr, VIAS))}, got {via!r}")
    return Viewer(None, frozenset(labels), ADMIN, team=False, via=via)


def library_viewer(labels: Iterable[str] = ()) -> Viewer:
    """Who acts through the library (``import graphrag``, or a function below the doors called directly): a local
    viewer through Python with ``labels``. A change made so is audited as theirs, like any other."""
    return local_principal(labels, via=VIA_PYTHON)
