"""``graphrag review``: the review queue (``list``), the dispute queue (``disputes``), recording a verdict
(``mark``) and the team's review policy (``policy``), each a subcommand with only its own options."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from graphrag.cli.common import add_access_arg, add_json_arg, add_store_arg, open_store, principal

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers

# a label, or a kind's own words (which name the kind: "answers", "does_not"; "backed", "not_backed")
VERDICTS = ("supported", "partial", "unsupported", "backed", "not_backed", "answers", "does_not", "partly")
KINDS = ("backs", "answers")


def register(subparsers: Subparsers) -> None:
    """Add ``review`` with its subcommands ``list``, ``disputes``, ``mark`` and ``policy``."""
    s = subparsers.add_parser("review", help="the review queue, the dispute queue, a verdict, the review policy")
    actions = s.add_subparsers(dest="action", required=True)
    for name, help_ in (("list", "the queue: what still needs a verdict first, lowest support first"),
                        ("disputes", "claims whose reviewers disagree")):
        q = actions.add_parser(name, help=help_)
        q.add_argument("--answer", type=int, help="only this answer's claims")
        q.add_argument("--reviewer", help="you: under blind review, nobody else's verdicts on a claim still judged "
                                          "blind are shown until you have judged it")
        add_store_arg(q)
        add_access_arg(q)
        add_json_arg(q)
    m = actions.add_parser("mark", help="record a verdict on a claim")
    m.add_argument("--answer", type=int, required=True)
    m.add_argument("--claim", type=int, required=True,
                   help="the claim's number as `graphrag ask`, `review list` and the pages show it (from 1)")
    m.add_argument("--verdict", choices=VERDICTS, required=True)
    m.add_argument("--kind", choices=KINDS,
                   help="the question answered: backs (does the source back the claim?) or answers (does the quote "
                        "answer the question?); default: the one the claim is asked (a verbatim quote: answers)")
    m.add_argument("--reviewer", required=True, help="your name, recorded with the verdict")
    m.add_argument("--citation", help="the citation marker judged (default: the claim's first valid one)")
    m.add_argument("--note")
    m.add_argument("--adjudicate", action="store_true",
                   help="settle a disputed claim as its adjudicator (not one of its reviewers)")
    add_store_arg(m)
    add_access_arg(m)
    add_json_arg(m)
    p = actions.add_parser("policy", help="show or set (--required N) how many independent verdicts a claim needs, "
                                          "and whether team readers wait for verified answers")
    p.add_argument("--required", type=int, help="independent verdicts each claim needs (1 to 5)")
    p.add_argument("--held-until-verified", choices=["on", "off"],
                   help="on: readers signed in to a team dashboard (below reviewer) see an answer only once it is "
                        "verified, and until then where it stands in the review queue; off by default, and nothing "
                        "is held in local mode")
    add_store_arg(p)
    add_json_arg(p)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the review subcommand given."""
    return {"list": _queue, "disputes": _queue, "mark": _mark, "policy": _policy}[args.action](args)


def _policy(args: argparse.Namespace) -> int:
    from graphrag.verify import held_until_verified, review_policy, set_review_policy

    held = None if args.held_until_verified is None else args.held_until_verified == "on"
    with open_store(args) as store:
        # set (role checked, audited) by the verify door's use case, as the Record page does
        policy = (set_review_policy(store, principal(args), args.config, args.required, held_until_verified=held)
                  if args.required is not None or held is not None else review_policy(store))
        holds = held_until_verified(store)
    print(json.dumps({"required_verdicts": policy.required, "blind": policy.blind, "held_until_verified": holds})
          if args.json else
          f"each claim needs {policy.required} independent verdict(s)"
          + ("; review is blind, disagreements go to the dispute queue" if policy.blind else "")
          + ("; held until verified: team readers see an answer once reviewers verify it" if holds else ""))
    return 0


def _queue(args: argparse.Namespace) -> int:
    from graphrag.present import support_json
    from graphrag.verify import review_queue, review_viewer

    with open_store(args) as store:
        # Under blind review nobody else's verdict on a claim still judged blind is listed until this
        # reviewer has judged it (graphrag.verify.policy.visible_verdicts).
        by = principal(args)
        queue = review_queue(store, by, viewer=review_viewer(by, args.reviewer), answer_id=args.answer,
                             disputed_only=args.action == "disputes")
    rows: list[dict[str, Any]] = [
        {"answer_id": q.answer_id, "claim": q.claim_index + 1, "claim_index": q.claim_index, "text": q.text, "status": q.state.status.value,
         "flags": [f.value for f in q.flags], "support": support_json(q.support),
         "kind": q.kind.value, "question_asked": q.kind.question, "estimate_sample": q.sample,
         # its answer was verified and a sentence it cites changed since: to judge again, first
         "source_changed": q.changed,
         "verdicts": [{"reviewer": v.reviewer, "verdict": v.verdict.value, "kind": v.kind.value,
                       "judgement": v.words, "role": v.role, "stale": v.stale,
                       "tampered": v.tampered, "time": v.created_at, "carried_from": v.carried_from,
                       "carried_from_answer": v.carried_answer, "kept_in_version": v.kept_in_version}
                      for v in q.verdicts]} for q in queue]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        print("nothing in the queue" + (" of disputes" if args.action == "disputes" else "")
              + (f" for answer {args.answer}" if args.answer is not None else ""))
        return 0
    # columns named: the answer and claim are what `review mark --answer --claim` takes
    print(f"{'answer':>6} {'claim':>5}  {'check':<14} {'verdicts (or status)':<28} claim text")
    for r in rows:
        done = ", ".join(f"{v['reviewer']}: {v['judgement']}" + (f" ({v['tampered']})" if v["tampered"] else "")
                         + (f" (from answer {v['carried_from_answer']})" if v["carried_from"] else "")
                         for v in r["verdicts"]) or r["status"]
        if r["source_changed"]:
            done = f"source changed; {done}"
        print(f"{r['answer_id']:>6} {r['claim']:>5}  {r['support']['label']:<14} {done:<28} {r['text'][:70]}")
    return 0


def _mark(args: argparse.Namespace) -> int:
    import sys

    from graphrag.verify import mark_verdict

    if args.claim < 1:
        print(f"error: --claim {args.claim}: claims are numbered from 1, as `graphrag ask`, `review list` and the "
              "pages show them", file=sys.stderr)
        return 2
    with open_store(args) as store:
        # the command line acts locally (every role, the --access labels); the verdict is audited. The person types
        # the number they read; the use case takes the claim's index.
        v = mark_verdict(store, principal(args), args.config, args.answer, args.claim - 1, args.verdict, args.reviewer,
                         note=args.note or "", citation=args.citation, adjudicate=args.adjudicate, kind=args.kind)
    print(json.dumps({"verdict_id": v.id, "answer_id": v.answer_id, "claim": v.claim_index + 1,
                      "verdict": v.verdict.value, "kind": v.kind.value, "judgement": v.words,
                      "reviewer": v.reviewer, "role": v.role})
          if args.json else f"recorded verdict {v.id} on claim {v.claim_index + 1} of answer {v.answer_id}: "
                            f"{v.words} ({v.kind.question}) by {v.reviewer}"
          + (" (adjudication)" if args.adjudicate else ""))
    return 0
