"""Who may see and do what: the one visibility rule over access labels (``rule``: ``Access.sees``, an answer's
footprint), identities and roles (``identity``: ``Viewer``, the one record of who acts that every use case takes;
``require``) and the team deployment's policy file
and sign-in (``deployment``). Every other package asks here rather than comparing labels or roles itself.

Import the names below from ``graphrag.access``; each is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphrag.registry import lazy_exports

if TYPE_CHECKING:
    from graphrag.access.deployment import Deployment as Deployment
    from graphrag.access.deployment import allowed_path as allowed_path
    from graphrag.access.deployment import cached_policy as cached_policy
    from graphrag.access.deployment import deployment_for as deployment_for
    from graphrag.access.deployment import ingest_roots as ingest_roots
    from graphrag.access.deployment import provider_name as provider_name
    from graphrag.access.identity import ADJUDICATOR as ADJUDICATOR
    from graphrag.access.identity import ADMIN as ADMIN
    from graphrag.access.identity import REVIEWER as REVIEWER
    from graphrag.access.identity import VIA_CLI as VIA_CLI
    from graphrag.access.identity import VIA_DASHBOARD as VIA_DASHBOARD
    from graphrag.access.identity import VIA_PYTHON as VIA_PYTHON
    from graphrag.access.identity import Forbidden as Forbidden
    from graphrag.access.identity import Viewer as Viewer
    from graphrag.access.identity import library_viewer as library_viewer
    from graphrag.access.identity import local_principal as local_principal
    from graphrag.access.identity import require as require
    from graphrag.access.rule import Access as Access
    from graphrag.access.rule import Footprint as Footprint
    from graphrag.access.rule import Sources as Sources
    from graphrag.access.rule import answer_visible as answer_visible
    from graphrag.access.rule import footprint as footprint
    from graphrag.access.rule import footprint_of_routes as footprint_of_routes
    from graphrag.access.rule import withdrawn_footprint as withdrawn_footprint

__getattr__ = lazy_exports(__name__)
