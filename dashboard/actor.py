"""Who acts on this run: the principal (the signed-in identity in team mode, the sidebar's labels locally),
the labels and reviewer name it acts with, the role checks that stop a page.

Computed afresh on every call, never cached in the session: a user removed from the policy file loses access
on their next rerun.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from dashboard.render import plain
from dashboard.resources import config, current_deployment
from dashboard.session import ACCESS, REVIEWER
from graphrag.access import VIA_DASHBOARD, Forbidden, Viewer, cached_policy, local_principal, require
from graphrag.answer import Overview, viewer_overview
from graphrag.errors import InputError
from graphrag.store import Store
from graphrag.verify import ReviewViewer, clean_reviewer, review_viewer


def principal() -> Viewer:
    """Who acts on this run, computed afresh on every call: the policy file is re-read when it
    changes, so a user removed from it loses access on their next rerun (button callbacks too,
    which run before the page script)."""
    dep = current_deployment()
    if not dep.team:
        return local_principal(st.session_state.get(ACCESS) or [], via=VIA_DASHBOARD)
    if dep.problems or not st.user.is_logged_in:
        return Viewer(None, frozenset(), None, team=True)
    policy = cached_policy(dep.policy_path)
    who = policy.identity(st.user.to_dict())
    grant = policy.grant(who)
    return Viewer(who, grant.labels, grant.role, team=True)


def refreshed(p: Viewer) -> Viewer:
    """``p`` with its grant read again from the policy file now: for code that runs outside the
    script run (a deferred download's callable), where the identity is the one that drew it."""
    if not p.team or p.identity is None:
        return p
    grant = cached_policy(current_deployment().policy_path).grant(p.identity)
    return Viewer(p.identity, grant.labels, grant.role, team=True)


def access() -> tuple[str, ...]:
    """The labels this viewer sees with: the policy's grant in team mode, the sidebar's filter locally."""
    return tuple(sorted(principal().labels))


def reviewer(p: Viewer | None = None) -> str:
    """The reviewer name as it will be stored, or "" when none (or an invalid one) is set. In team
    mode it is the signed-in identity (and "" for someone who may not record verdicts). ``p``: who acts, when the
    caller has it already; default: who acts now."""
    me = principal() if p is None else p
    if me.team:
        return me.name if me.may("reviewer") else ""
    try:
        return clean_reviewer(str(st.session_state.get(REVIEWER, "")))
    except InputError:
        return ""


def viewer_for_review(p: Viewer | None = None) -> ReviewViewer:
    """Who this run shows verdicts to, for blind review (graphrag.verify.review.review_viewer): the signed-in
    identity in team mode (an admin sees every verdict), the sidebar's reviewer name locally.
    ``p``: a principal already refreshed (deferred downloads); default: who acts now."""
    who = principal() if p is None else p
    return review_viewer(who, None if who.team else str(st.session_state.get(REVIEWER, "")))


@dataclass(frozen=True)
class Actor:
    """Who acts, in the three forms a page needs, built once per run (``acting``): the principal (their identity,
    labels and role), the reviewer name their verdicts are stored under ("" when none), and their stance under blind
    review (whose verdicts they may see). A button's callback builds its own: it acts with who is signed in when it
    runs, not when the button was drawn."""

    principal: Viewer
    reviewer: str
    onlooker: ReviewViewer

    def refreshed(self) -> Actor:
        """The same person with their grant read again now: for code that runs outside the script run (a deferred
        download's callable)."""
        return replace(self, principal=refreshed(self.principal))


def acting(p: Viewer | None = None) -> Actor:
    """Who acts on this run as one ``Actor``; ``p``: the principal when the caller has it already."""
    who = principal() if p is None else p
    return Actor(who, reviewer(who), viewer_for_review(who))


def require_actor(role: str, action: str) -> Actor:
    """``require_role`` for a page that acts: stop the run unless the viewer holds ``role``, else who acts."""
    return acting(require_role(role, action))


def require_role(role: str, action: str) -> Viewer:
    """For a page or an action: stop the run with the reason unless the viewer holds ``role``."""
    me = principal()
    try:
        require(me, role, action)
    except Forbidden as exc:
        st.error(plain(exc))
        st.stop()
    return me



def shown_counts(s: Store) -> Overview:
    """The store's sizes as this viewer's labels show them: the one source of every count a page states (the
    sidebar, the first start's message), so no two places disagree (the first start once summed entities per
    document, counting a shared entity once per document and internal ones a public viewer cannot see)."""
    me = principal()
    return viewer_overview(s, me, config(), viewer_for_review(me))
