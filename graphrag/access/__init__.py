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
    from graphrag.access.deployment import (
        Deployment,
        allowed_path,
        cached_policy,
        deployment_for,
        ingest_roots,
        provider_name,
    )
    from graphrag.access.identity import (
        ADJUDICATOR,
        ADMIN,
        REVIEWER,
        VIA_CLI,
        VIA_DASHBOARD,
        VIA_PYTHON,
        Forbidden,
        Viewer,
        library_viewer,
        local_principal,
        require,
    )
    from graphrag.access.rule import (
        Access,
        Footprint,
        Sources,
        answer_visible,
        footprint,
        footprint_of_routes,
        withdrawn_footprint,
    )

# Name -> the module that defines it. Imported on first use, so importing the package (or one of its
# modules) loads nothing else and no import cycle can run through this door.
_EXPORTS = {
    "ADJUDICATOR": "graphrag.access.identity",
    "ADMIN": "graphrag.access.identity",
    "Access": "graphrag.access.rule",
    "Deployment": "graphrag.access.deployment",
    "Footprint": "graphrag.access.rule",
    "Forbidden": "graphrag.access.identity",
    "REVIEWER": "graphrag.access.identity",
    "Sources": "graphrag.access.rule",
    "VIA_CLI": "graphrag.access.identity",
    "VIA_DASHBOARD": "graphrag.access.identity",
    "VIA_PYTHON": "graphrag.access.identity",
    "Viewer": "graphrag.access.identity",
    "allowed_path": "graphrag.access.deployment",
    "answer_visible": "graphrag.access.rule",
    "cached_policy": "graphrag.access.deployment",
    "deployment_for": "graphrag.access.deployment",
    "footprint": "graphrag.access.rule",
    "footprint_of_routes": "graphrag.access.rule",
    "ingest_roots": "graphrag.access.deployment",
    "library_viewer": "graphrag.access.identity",
    "local_principal": "graphrag.access.identity",
    "provider_name": "graphrag.access.deployment",
    "require": "graphrag.access.identity",
    "withdrawn_footprint": "graphrag.access.rule",
}

__all__ = [
    "ADJUDICATOR",
    "ADMIN",
    "REVIEWER",
    "VIA_CLI",
    "VIA_DASHBOARD",
    "VIA_PYTHON",
    "Access",
    "Deployment",
    "Footprint",
    "Forbidden",
    "Sources",
    "Viewer",
    "allowed_path",
    "answer_visible",
    "cached_policy",
    "deployment_for",
    "footprint",
    "footprint_of_routes",
    "ingest_roots",
    "library_viewer",
    "local_principal",
    "provider_name",
    "require",
    "withdrawn_footprint",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
