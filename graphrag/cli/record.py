"""``graphrag record stats``: progress, reviewer agreement, the checker against reviewers and bad sources,
from the verification record."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_json_arg, add_me_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``record stats`` and its filters."""
    s = subparsers.add_parser("record", help="the verification record as a measurement")
    r = s.add_subparsers(dest="what", required=True)
    rs = r.add_parser("stats", help="progress, reviewer agreement, the checker against reviewers, bad sources")
    rs.add_argument("--since", help="verdicts at or after this ISO time")
    rs.add_argument("--until", help="verdicts before this ISO time")
    rs.add_argument("--reviewer", help="only this reviewer's verdicts (a filter: who you are is --me)")
    rs.add_argument("--document", help="verdicts on citations of this document id")
    rs.add_argument("--question", help="answers whose question contains this text")
    rs.add_argument("--kind", choices=("answers", "backs"),
                    help="one judgement: answers (does a quote answer the question?) or backs (does the source back a "
                         "claim in other words?); default: each claim with the one it is asked")
    add_store_arg(rs)
    add_access_arg(rs)
    add_me_arg(rs)
    add_json_arg(rs)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the statistics of the verdicts the filters and access labels select."""
    from graphrag.model import VerdictKind
    from graphrag.verify import RecordFilter, record_stats, review_viewer

    flt = RecordFilter(args.since, args.until, args.reviewer, args.document, args.question,
                       VerdictKind(args.kind) if args.kind else None)
    with open_store(args) as store:
        stats = record_stats(store, args.access, flt, review_viewer(principal(args), args.me))
    data = stats.to_json()
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    p, g, c = data["progress"], data["agreement"], data["checker"]
    if data["question"]:
        print(f"{data['question']} ({data['kind']})")
    print(f"claims {p['claims']}: {p['unreviewed']} unreviewed, {p['verified']} verified, {p['disputed']} disputed, "
          f"{p['stale']} stale, {p['source_removed']} whose source was removed ({p['verdicts']} current verdicts)")
    for counts in (data["reviewed"], *data["by_reviewer"]):
        who = f"by {counts['reviewer']}" if counts["reviewer"] else "reviewed claims (settled verdict)"
        print(f"{who}: {counts['n']} judged; " + ", ".join(
            f"{kind} {x['n']} (95% CI {x['ci95'][0]}–{x['ci95'][1]})"
            for kind in ("supported", "partially_supported", "unsupported") for x in [counts[kind]]))
    print(f"agreement: Krippendorff's alpha (nominal) {g['krippendorff_alpha_nominal']} over {g['alpha_claims']} "
          f"claims judged twice or more; reviewers: {', '.join(g['reviewers']) or 'none'}")
    for pair in g["cohen_kappa_pairs"]:
        print(f"  Cohen's kappa {' / '.join(pair['reviewers'])}: {pair['kappa']} (n={pair['n']})")
    print(f"checker vs reviewers (n={c['n']}): AUROC {c['auroc']}, balanced accuracy {c['balanced_accuracy']}, "
          f"unsupported found in the first 20% of the queue {c['triage_unsupported_in_first_20pct']} "
          f"(random {c['triage_random']})")
    for b in c["reliability"]:
        print(f"  score {b['low']:.1f}-{b['high']:.1f}: n={b['n']}, judged supported {b['judged_supported']}")
    for src in data["sources"][:10]:
        picked = ", ".join(f"{who} {n}" for who, n in src["picked_by"].items() if n)
        print(f"  {src['document']} v{src['version']}: {src['unsupported']} of {src['judged']} unsupported"
              + (f" (picked by {picked})" if picked else ""))
    return 0
