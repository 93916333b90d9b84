"""``graphrag record stats``: progress, reviewer agreement, the checker against reviewers and bad sources,
from the verification record; ``graphrag record estimate``: how much of what nobody reviewed is likely unsupported."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_json_arg, add_me_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``record stats`` with its filters, and ``record estimate``."""
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
    est_parser = r.add_parser("estimate", help="the estimated share of claims without a verdict that reviewers "
                                               "would judge unsupported, with its 95%% interval, from a stratified "
                                               "sample they judge (one sample per set of --access labels)")
    est_parser.add_argument("--draw", action="store_true",
                     help="draw a new sample (one is drawn when there is none); its claims come first in the queue")
    est_parser.add_argument("--size", type=int, default=None, help="claims to draw (default 60)")
    est_parser.add_argument("--seed", type=int, default=None, help="random seed of the draw (default: unpredictable)")
    add_store_arg(est_parser)
    add_access_arg(est_parser)
    add_json_arg(est_parser)
    s.set_defaults(run=run)


def run_estimate(args: argparse.Namespace) -> int:
    """Print the estimate of what nobody reviewed, drawing its sample first when asked or when there is none."""
    from graphrag.verify import draw_estimate_sample, unreviewed_estimate

    viewer = principal(args)
    with open_store(args) as store:
        est = unreviewed_estimate(store, viewer, args.config)
        drawn = None
        if args.draw or not est.strata:
            drawn = draw_estimate_sample(store, viewer, args.config, args.size, args.seed)
            est = unreviewed_estimate(store, viewer, args.config)
    if args.json:
        print(json.dumps({**est.to_json(), "drawn_now": drawn}, indent=2, ensure_ascii=False))
        return 0
    labels = ", ".join(est.labels) or "(none)"
    if drawn is not None:
        print(f"drew {drawn} claims without a verdict into the queue as the estimate sample for the labels {labels}")
    else:
        print(f"estimate sample for the labels {labels}"
              + (f" (drawn {est.drawn_at}; each set of labels has its own)" if est.drawn_at else ""))
    if est.unsupported_share is None:
        print(est.reason)
    else:
        print(f"of {est.population} claims without a verdict (when drawn), an estimated {est.unsupported_share:.1%} "
              f"would be judged unsupported (95% interval {est.ci_low:.1%}-{est.ci_high:.1%}; {est.judged} of "
              f"{est.sampled} sampled claims settled)")
    for st in est.strata:
        print(f"  {st.name}: {st.population} claims, {st.sampled} sampled, {st.judged} settled, "
              f"{st.unsupported} unsupported")
    return 0


def run(args: argparse.Namespace) -> int:
    """``record stats``: the statistics of the verdicts the filters and access labels select; ``record estimate``:
    the estimate of what nobody reviewed."""
    if args.what == "estimate":
        return run_estimate(args)
    from graphrag.model import VerdictKind
    from graphrag.verify import RecordFilter, record_stats, review_viewer

    flt = RecordFilter(args.since, args.until, args.reviewer, args.document, args.question,
                       VerdictKind(args.kind) if args.kind else None)
    with open_store(args) as store:
        stats = record_stats(store, principal(args), flt, review_viewer(principal(args), args.me))
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
