"""``graphrag entity``: an entity's mentions and relations in the documents the access labels can see."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_json_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``entity NAME`` and its options."""
    s = subparsers.add_parser("entity", help="every mention and relation of an entity")
    s.add_argument("name")
    add_store_arg(s)
    add_access_arg(s)
    add_json_arg(s)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the entity's visible mentions and relations; 2 when no visible entity has that name."""
    from graphrag.answer import visible_entity
    from graphrag.language.sentences import normalise
    from graphrag.present import entity_json

    with open_store(args) as store:
        key = normalise(args.name)
        view = visible_entity(store, key, principal(args))
        if view is None:  # unknown, or no mention the labels show: the same message
            print(f"no entity named {args.name!r} (key {key!r})", file=sys.stderr)
            return 2
        names = store.entity_names()
    data = entity_json(view.entity, list(view.relations))
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{data['name']} ({data['type']}), key {key!r}: {len(view.entity.mentions)} mentions, {len(view.relations)} relations")
    for m in data["mentions"]:
        sup = " [superseded]" if m["superseded"] else ""
        print(f"  mention  {m['document']} v{m['version']}{sup} [{m['start']}:{m['end']}] {m['sentence']}")
    for r in view.relations:
        sup = " [superseded]" if r.superseded else ""
        print(f"  relation {names.get(r.source, r.source)} -{r.type}-> {names.get(r.target, r.target)}   "
              f"({r.span.document_id} v{r.span.version}{sup}) {r.span.text}")
    return 0
