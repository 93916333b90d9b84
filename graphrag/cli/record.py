"""``graphrag record stats``: progress, reviewer agreement, the checker against reviewers and bad sources,
from the verification record; ``graphrag record estimate``: how much of what nobody reviewed is likely unsupported;
``graphrag record carried``: the verdicts carried over, and those the rule before issue 60 carried besides;
``graphrag record changes``: the verified answers whose cited sentences changed since."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from graphrag.cli.common import add_access_arg, add_json_arg, add_me_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers
    from graphrag.verify import RecordStats


def register(subparsers: Subparsers) -> None:
    """Add ``record stats`` with its filters, ``record estimate``, ``record carried`` and ``record changes``."""
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
    rc = r.add_parser("carried", help="how many verdicts carry over to claims they were not given on, and which ones "
                                      "the rule before issue 60 carried besides (whether a quote answers, carried to "
                                      "an answer to another question): the claims to judge again")
    add_store_arg(rc)
    add_access_arg(rc)
    add_me_arg(rc)
    add_json_arg(rc)
    ch = r.add_parser("changes", help="the verified answers whose sources changed since they were verified: which "
                                      "sentence, its old and new words, the version that changed it")
    ch.add_argument("--export", choices=("csv", "json"),
                    help="print the list as CSV or JSON for a spreadsheet or an auditor (admin only; audited)")
    add_store_arg(ch)
    add_access_arg(ch)
    add_me_arg(ch)
    add_json_arg(ch)
    s.set_defaults(run=run)


def run_changes(args: argparse.Namespace) -> int:
    """List the verified answers whose cited sentences changed since, one line per changed sentence."""
    from graphrag.language.sentences import counted
    from graphrag.verify import export_source_changes, source_changed_answers

    with open_store(args) as store:
        if args.export:
            print(export_source_changes(store, principal(args), args.config, args.export, me=args.me).text, end="")
            return 0
        changed = source_changed_answers(store, principal(args), args.config, me=args.me)
    if args.json:
        print(json.dumps([{"answer_id": c.answer.id, "question": c.answer.question, "standing": c.standing.to_json()}
                          for c in changed], indent=2, ensure_ascii=False))
        return 0
    if not changed:
        print("no verified answer's sources changed since it was verified")
        return 0
    print(f"{counted(len(changed), 'verified answer')} whose sources changed since (their changed claims come first "
          "in the review queue):")
    for c in changed:
        print(f"\nanswer {c.answer.id} ({c.answer.question!r}): {c.standing.words}")
        for ch in c.standing.changes:
            when = f", {ch.changed_at[:10]}" if ch.changed_at else ""
            version = f"v{ch.changed_in}{when}" if ch.changed_in is not None else "removed"
            print(f"  claim {ch.claim_index + 1} ({version}): {ch.words}")
    return 0


def run_carried(args: argparse.Namespace) -> int:
    """Print what carry-over shows now and what the old rule carried besides, one line per such verdict."""
    from graphrag.language.sentences import counted
    from graphrag.verify import carry_check, review_viewer

    with open_store(args) as store:
        check = carry_check(store, principal(args), review_viewer(principal(args), args.me))
    if args.json:
        print(json.dumps(check.to_json(), indent=2, ensure_ascii=False))
        return 0
    print(f"{counted(check.carried, 'verdict')} carried over to claims they were not given on (the same claim's "
          "words and cited sentence; whether a quote answers, to the same question only)")
    old = check.old_rule_only
    if not old:
        print("the rule before issue 60 carried no other verdict here")
        return 0
    print(f"the rule before issue 60 also carried {counted(len(old), 'verdict')} on whether a quote answers to an "
          "answer to another question; carried no more, those quotes are back in the queue:")
    for v, question, source in old:
        print(f"  answer {v.answer_id}, claim {v.claim_index + 1} ({question!r}): {v.words!r} by {v.reviewer}, given on "
              f"answer {v.carried_answer} ({source!r})")
    return 0


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
    """``record stats``: the statistics of the verdicts the filters and access labels select, each kind of
    judgement apart in its own words (as the Record page); ``record estimate``: the estimate of what nobody
    reviewed; ``record carried``: what carries over."""
    if args.what == "estimate":
        return run_estimate(args)
    if args.what == "carried":
        return run_carried(args)
    if args.what == "changes":
        return run_changes(args)
    from graphrag.model import VerdictKind
    from graphrag.verify import RecordFilter, record_by_kind, record_stats, review_viewer

    flt = RecordFilter(args.since, args.until, args.reviewer, args.document, args.question,
                       VerdictKind(args.kind) if args.kind else None)
    with open_store(args) as store:
        who, me = principal(args), review_viewer(principal(args), args.me)
        if args.json:
            print(json.dumps(record_stats(store, who, flt, me).to_json(), indent=2, ensure_ascii=False))
            return 0
        sections = ([record_stats(store, who, flt, me)] if flt.kind is not None
                    else [s for s in record_by_kind(store, who, flt, me).values() if s.claims])
    if not sections:
        print("no claims match" + (" these filters" if flt != RecordFilter() else " yet: ask a question first"))
    for stats in sections:
        _print_stats(stats)
    return 0


# what each kind's claims are, as the Record page's tabs name them
_KIND_CLAIMS = {"answers": ("verbatim quote", "verbatim quotes"), "backs": ("claim in other words",
                                                                           "claims in other words")}


def _print_stats(stats: RecordStats) -> None:
    """One kind's figures in the Record page's words: reviewed (whatever was found) apart from what reviewers found
    supported, each verdict in its kind's words, and every figure that cannot be computed said so in words."""
    from graphrag.language.sentences import counted
    from graphrag.model import VERDICT_WORDS, VerdictKind, VerdictLabel
    from graphrag.verify import MIN_PAIR_CLAIMS

    kind = stats.kind or VerdictKind.BACKS
    words = VERDICT_WORDS[kind]
    yes, partly, no = (words[x] for x in (VerdictLabel.SUPPORTED, VerdictLabel.PARTIAL, VerdictLabel.UNSUPPORTED))
    r = stats.reviewed
    print(f"{kind.question} ({counted(stats.claims, *_KIND_CLAIMS[kind.value])})")
    print(f"  claims {stats.claims}: {stats.unreviewed} unreviewed, {stats.reviewed_claims} reviewed ("
          f"{r.supported.k} {yes}, {r.partial.k} {partly}, {r.unsupported.k} {no}), {stats.disputed} disputed, "
          f"{stats.stale} stale, {stats.source_removed} whose source was removed "
          f"({counted(stats.verdicts, 'current verdict')})")
    if stats.tampered:
        print(f"  {counted(stats.tampered, 'verdict')} tampered (the claim's or its sentence's words changed after "
              "it): counted for nothing here")
    for label, counts in (("reviewed claims (settled verdict)", r),
                          *((f"by {c.who}", c) for c in stats.by_reviewer)):
        print(f"  {label}: {counted(counts.n, 'judged', 'judged')}; {yes} {counts.supported}, {partly} "
              f"{counts.partial}, {no} {counts.unsupported}")
    if not stats.reviewers:
        print("  agreement: no verdicts yet")
    elif len(stats.reviewers) < 2:
        print(f"  agreement: one reviewer so far ({stats.reviewers[0]}); agreement needs two who judge the same claims")
    elif stats.alpha is None:
        print(f"  agreement: not enough overlapping verdicts to compute Krippendorff's alpha ("
              f"{counted(stats.alpha_units, 'claim')} judged by two or more reviewers"
              + ("" if not stats.alpha_units else ", all alike: nothing to agree on") + f"); reviewers: "
              f"{', '.join(stats.reviewers)}")
    else:
        print(f"  agreement: Krippendorff's alpha (nominal) {stats.alpha:.2f} over "
              f"{counted(stats.alpha_units, 'claim')} judged twice or more; reviewers: {', '.join(stats.reviewers)}")
    for pair in stats.pairs:
        kappa = (f"{pair.kappa:.2f}" if pair.kappa is not None else f"needs {MIN_PAIR_CLAIMS} shared claims"
                 if pair.n < MIN_PAIR_CLAIMS else "cannot be computed (one label only)")
        print(f"    Cohen's kappa {' / '.join(pair.reviewers)}: {kappa} ({counted(pair.n, 'shared claim')})")
    _print_check(stats, yes, no)
    for src in stats.sources[:10]:
        picked = ", ".join(f"{by} {n}" for by, n in (("retrieval", src.retrieval), ("the generator", src.generator),
                                                     ("the document", src.by_document)) if n)
        print(f"    {src.document} v{src.version}: {src.unsupported} of {src.judged} {no}"
              + (f" (picked by {picked})" if picked else ""))


def _print_check(stats: RecordStats, yes: str, no: str) -> None:
    """The automatic check against the reviewers, or in words why there is nothing to say yet."""
    from graphrag.model import VerdictKind

    check = ("the reader's probability that the documents answer" if stats.kind is VerdictKind.ANSWERS
             else "the support checker")
    if not stats.checker_n:
        print(f"  {check} against the reviewers: nothing to compare yet (no judged claim it scored"
              + ("" if stats.kind is VerdictKind.ANSWERS else "; verbatim quotes are left out") + ")")
        return
    if stats.auroc is None or stats.balanced_accuracy is None:
        print(f"  {check} against the reviewers ({counted_claims(stats.checker_n)}): AUROC and balanced accuracy "
              f"need claims judged {yes} and claims judged not")
    else:
        triage = ("no claim judged " + no + " to find" if stats.triage_found is None
                  else f"{stats.triage_found:.2f} of those judged {no} (random {stats.triage_random:.2f})")
        print(f"  {check} against the reviewers ({counted_claims(stats.checker_n)}): AUROC {stats.auroc:.2f}, "
              f"balanced accuracy {stats.balanced_accuracy:.2f}, found in the first 20% of the queue: {triage}")
    for b in stats.calibration:
        if b.n and b.judged_supported is not None:
            print(f"    score {b.low:.1f}-{b.high:.1f}: {counted_claims(b.n)}, judged {yes} {b.judged_supported:.2f}")


def counted_claims(n: int) -> str:
    """"1 claim", "3 claims"."""
    from graphrag.language.sentences import counted

    return counted(n, "claim")
