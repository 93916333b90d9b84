"""``graphrag eval themes``: a global question answered theme by theme on the 31 dev articles.

On a store of ``nq_articles_dev.json``'s articles (the one ``graphrag eval answers`` fills, reused when present),
"What are these documents about?" is asked with ``mode="themes"`` as the product asks it, and the figures are: how
many of the articles the answer quotes; the share of theme claims whose every citation lies in a document of that
theme (the theme found again from the communities, by the entity each citation's route starts at); whether every
claim checked as supported; the start-up (store opened, graph loaded, encoder and reader warm); and the answer's
time, first (communities computed) and again (cached). A benchmark, not a timed test.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from graphrag.model import AskSettings, SupportLabel
from graphrag.store import Store
from lab import lab_config
from lab.evaluate.answers import nq_articles_set

QUESTION = "What are these documents about?"
TARGETS = {"articles_cited": 25, "answer_s": 5.0}


def measure(store: Store, question: str = QUESTION) -> dict[str, Any]:
    """The figures of one theme answer on ``store`` (the module's docstring says which)."""
    from graphrag.answer import Asker, load_graph
    from graphrag.answer.themes import themes_of

    load = os.getloadavg()[0]  # the machine's other work moves every time below
    t0 = time.perf_counter()
    asker = Asker(store, config=lab_config()).warm()
    graph = load_graph(store)
    startup = time.perf_counter() - t0
    settings = AskSettings(mode="themes")
    t1 = time.perf_counter()
    answer = asker.ask(question, settings).answer
    first = time.perf_counter() - t1
    t2 = time.perf_counter()
    asker.ask(question, settings)
    again = time.perf_counter() - t2
    # a community's documents, over the themes it splits into (its documents that share only generic words)
    spans: dict[int, set[str]] = {}
    for t in themes_of(graph, settings, asker.embedder.encode([question])[0]):
        spans.setdefault(t.community.id, set()).update(graph.docs[d].id for d in t.documents)
    from graphrag.answer.communities import communities

    found = communities(graph, settings.access)
    inside = 0
    for claim in answer.claims:
        items = [c.item for c in claim.citations if c.item is not None]
        docs = spans.get(found.community_of(graph.entity_index(items[0].route.seed)), set()) if items else set()
        inside += bool(items) and all(i.span.document_id in docs for i in items)
    cited = {c.item.span.document_id for cl in answer.claims for c in cl.citations if c.item is not None}
    return {
        "articles": len({d.id for d in graph.docs}),
        "articles_cited": len(cited),
        "not_cited": sorted({d.title for d in graph.docs if d.id not in cited}),
        "themes": sum("\n- " in block for block in answer.text.split("\n\n")),  # one block per theme
        "claims": len(answer.claims),
        "claims_uncited": sum(not claim.citations for claim in answer.claims),
        "quotes": sum(len(cl.citations) for cl in answer.claims),
        "claims_inside_their_theme": inside / len(answer.claims) if answer.claims else None,
        "claims_supported": sum(cl.support is not None and cl.support.label == SupportLabel.SUPPORTED
                                for cl in answer.claims),
        "communities": len(found.groups),
        "communities_method": found.method,
        "startup_s": round(startup, 2),
        "answer_s": round(first, 2),
        "answer_again_s": round(again, 2),
        "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def cli_eval_themes(data: str, stores: str, as_json: bool = False) -> int:
    """Fill (or reuse) the articles' store and print the theme answer's figures."""
    qset = nq_articles_set(Path(data) / "nq_articles_dev.json")
    folder = Path(stores)
    folder.mkdir(parents=True, exist_ok=True)
    with Store(folder / f"{qset.name}.db") as store:
        qset.ingest(store)
        fig = measure(store)
    fig["targets"] = {k: {"bound": v, "met": (fig[k] >= v) if k == "articles_cited" else (fig[k] <= v)}
                      for k, v in TARGETS.items()}
    if as_json:
        print(json.dumps(fig, indent=2))
    else:
        for k, v in fig.items():
            print(f"{k:28} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(cli_eval_themes(sys.argv[1] if len(sys.argv) > 1 else "../shared/data",
                             sys.argv[2] if len(sys.argv) > 2 else "lab-output/stores"))
