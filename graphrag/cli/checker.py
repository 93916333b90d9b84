"""``graphrag checker``: versions of the embedded support checker's parameters: fit from the team's verdicts,
list, roll back."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from graphrag.access import Viewer
from graphrag.cli.common import add_json_arg, add_store_arg, open_store, principal
from graphrag.config import Config
from graphrag.store import Store

if TYPE_CHECKING:
    from graphrag.cli.common import Subparsers


def register(subparsers: Subparsers) -> None:
    """Add ``checker fit|list|rollback``, each with its own options."""
    s = subparsers.add_parser("checker", help="the embedded support checker's versions: fit from verdicts, list, "
                                              "roll back")
    actions = s.add_subparsers(dest="action", required=True)
    fit = actions.add_parser("fit", help="refit from the team's verdicts; adopted only with enough verdicts and a "
                                         "real cross-validated gain")
    fit.add_argument("--from-verdicts", action="store_true", required=True,
                     help="learn from the team's verdicts in the store (supported = 1; partial and unsupported = 0)")
    listing = actions.add_parser("list", help="every version with its cross-validated figures")
    back = actions.add_parser("rollback", help="make an earlier version active (no version is ever deleted)")
    back.add_argument("--to", type=int, help="the version to make active (0 = the shipped parameters; "
                                             "default: the one before the active one)")
    for p in (fit, listing, back):
        add_store_arg(p)
        add_json_arg(p)
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List the versions, roll back to one, or fit a new one; 2 when a fit is refused (not adopted)."""
    with open_store(args) as store:
        if args.action == "list":
            return _list(store, args.json)
        if args.action == "rollback":
            from graphrag.verify import rollback_checker

            now_active = rollback_checker(store, principal(args), args.config, args.to)
            print(f"active support checker: embedded@{now_active or 'shipped'}")
            return 0
        return _fit(store, args.json, principal(args), args.config)


def _list(store: Store, as_json: bool) -> int:
    rows = store.checker_versions()
    if as_json:
        print(json.dumps([{"version": v.version, "created_at": v.created_at, "source": v.source,
                           "active": v.active, "activated_at": v.activated_at, "metrics": v.metrics}
                          for v in rows], indent=2))
        return 0
    active = next((v.version for v in rows if v.active), None)
    print(f"  shipped  parameters in the package{'  (active)' if active is None else ''}")
    for v in rows:
        m = v.metrics
        print(f"  {v.version:>7}  {v.created_at}  {v.source}{'  (active)' if v.active else ''}")
        if "refit" not in m:
            continue
        print(f"           cross-validated by answer: balanced accuracy {m['refit']['balanced_accuracy']:.3f} "
              f"vs shipped {m['shipped']['balanced_accuracy']:.3f} (gain {m['gain_balanced_accuracy']['mean']:+.3f}"
              f" ± {m['gain_balanced_accuracy']['sd']:.3f}); AUROC {m['refit']['auroc']:.3f} vs "
              f"{m['shipped']['auroc']:.3f}")
    return 0


def _fit(store: Store, as_json: bool, by: Viewer, config: Config) -> int:
    from graphrag.verify import RefitRefused, refit_checker

    try:
        outcome = refit_checker(store, by, config)
    except RefitRefused as exc:
        if as_json:
            print(json.dumps({"adopted": False, "reason": str(exc), "report": exc.report}, default=float))
        _print_fit(exc.report, sys.stderr)
        print(f"not adopted: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps({"adopted": True, "version": outcome.version, "report": outcome.report}, default=float))
    else:
        _print_fit(outcome.report, sys.stdout)
        print(f"adopted: support scores from now on are made by embedded@{outcome.version} "
              f"(undo with: graphrag checker rollback)")
    return 0


def _print_fit(report: dict[str, Any], out: TextIO) -> None:
    if "refit" not in report:
        return
    print(f"{report['n']} judged pairs ({report['n_supported']} supported; partial and unsupported count as not) "
          f"from {report['answers']} answers; {len(report['folds'])} folds by answer", file=out)
    for name in ("shipped", "refit"):
        m = report[name]
        print(f"  {name:<8} balanced accuracy {m['balanced_accuracy']:.3f}  AUROC {m['auroc']:.3f}", file=out)
    g = report["gain_balanced_accuracy"]
    print(f"  gain per fold: {g['mean']:+.3f} ± {g['sd']:.3f} (balanced accuracy)", file=out)
    for reason, count in (report.get("skipped") or {}).items():
        print(f"  left out: {count} ({reason})", file=out)
