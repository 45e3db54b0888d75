"""``gindex-studio curate PATH [--tasks …] [--duplicates T] [--leaks T] [--json]``.

Prints the near-duplicate groups, the leaks (test programs within T of the curriculum), the
coverage table, likely mislabels and outliers of a folder of programs, an experiment, or a
curriculum folder plus task files. Δ values are kept in the user's data folder (``--no-cache``:
not read or written).
"""
from __future__ import annotations

from gindex_studio.cli.cluster import add_cluster, cluster
from gindex_studio.cli.common import FILES_OR_DIRS, InputError, add_json, fraction_01, json_out, needs_gui, say, table
from gindex_studio.cli.options import flow_json_profiles, profile_help, refuse_distinct_pairs_too_big
from gindex_studio.cli.skipped import add_strict
from gindex_studio.core.support import profiles



def add_parsers(sub) -> None:
    p = sub.add_parser("curate", help="near-duplicates, leaks, coverage, mislabels and outliers of a curriculum",
                       description="Curation report of a folder of programs (one sub-folder per domain; all "
                                   "curriculum), an experiment (its curriculum, and its tasks as test programs), "
                                   "or a curriculum folder plus --tasks.")
    p.add_argument("path", metavar="DIR_OR_EXPERIMENT", help="folder of programs, or an experiment file")
    p.add_argument("--tasks", nargs="+", default=[], metavar=FILES_OR_DIRS, help="test programs (files or folders)")
    # defaults filled in by run() from core.curation.report (importing it here would load numpy on every run)
    p.add_argument("--duplicates", type=fraction_01, default=None, metavar="T",
                   help="near-duplicates: pairs with Δ ≤ T (default 0.05)")
    p.add_argument("--leaks", type=fraction_01, default=None, metavar="T",
                   help="leaks: test programs with Ω ≤ T (default 0.05)")
    p.add_argument("--outliers", type=fraction_01, default=None, metavar="T",
                   help="outliers: nearest program of the same domain at Δ ≥ T (default 0.5)")
    p.add_argument("--profile", choices=flow_json_profiles(), default=None,
                   help=profile_help(flow_json_profiles(), f"the experiment's, else {profiles.default().name}"))
    p.add_argument("--port-aware", action="store_true", help="edges correspond only on the same output port")
    p.add_argument("--ignore-type", action="append", metavar="TYPE", help="leave nodes of this type out")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the Δ cache")
    add_json(p)
    add_strict(p)
    p.add_argument("--window", action="store_true",
                   help="open the curation window instead (heatmap, views, split editing)")
    add_cluster(p)


def _options(args, ws_options):
    from dataclasses import replace

    opts = ws_options
    if args.profile:
        opts = replace(opts, profile=args.profile)
    if args.port_aware:
        opts = replace(opts, port_aware=True)
    if args.ignore_type:
        opts = replace(opts, ignore_types=frozenset(opts.ignore_types) | set(args.ignore_type))
    return opts


def run(args) -> int:
    import sys

    from gindex_studio.core.curation import report as cr
    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.workspace import CurationError, load_workspace
    from gindex_studio.core.support.cluster import ClusterError

    for name, default in (("duplicates", cr.DEFAULT_DUPLICATES), ("leaks", cr.DEFAULT_LEAKS),
                          ("outliers", cr.DEFAULT_OUTLIERS)):
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.window:
        from gindex_studio.cli.studio import have_display

        if not have_display():
            raise InputError("no display to open the curation window on; without --window the report is printed")
        try:
            from gindex_studio.ui.curation.window import main_curate
        except ImportError as e:  # a core-only install: no PySide6
            raise needs_gui("curate --window", e) from None

        with cluster(args) as client:
            from gindex_studio.ui.curation.menu import CurateFeature

            return main_curate(args.path, args.tasks, client, compare_features=lambda: [CurateFeature()])
    try:
        ws = load_workspace(args.path, args.tasks)
    except CurationError as e:
        raise InputError(str(e)) from None
    ws.options = _options(args, ws.options)
    active = sorted(ws.indices("curriculum") + ws.indices("test"))
    refuse_distinct_pairs_too_big("curate", [ws.items[i].flow for i in active],
                                  [ws.items[i].label for i in active], args, ws.options)
    cache = None if args.no_cache else DeltaCache.default(
        on_notice=lambda text: say(f"warning: {text}"))
    try:
        with cluster(args) as client:
            engine = cr.engine_for(ws, cache, client=client)
            if sys.stderr.isatty():
                engine.progress = lambda d, t: print(f"\rcurate: {d}/{t}", end="" if d < t else "\n",
                                                     file=sys.stderr, flush=True)
            try:
                rep = cr.analyse(ws, engine, args.duplicates, args.leaks, args.outliers)
            except ClusterError as e:
                raise InputError(str(e)) from None
    finally:
        if cache is not None:
            cache.close()
    value = cr.report_value(ws, rep)
    if args.json:
        json_out(value)
        return 0
    roles = {r: len(ws.indices(r)) for r in ("curriculum", "test", "excluded")}
    print(f"{len(ws)} programs: {roles['curriculum']} curriculum, {roles['test']} test, {roles['excluded']} excluded; "
          f"{len(ws.domain_names())} domains; profile {ws.options.profile.name}")
    d = value["duplicates"]
    print(f"\nNear-duplicate groups (Δ ≤ {d['threshold']:g}): {len(d['groups'])}; "
          f"{d['pairs_searched']} of {d['pairs_total']} pairs searched, the rest ruled out by bounds or cached")
    for k, g in enumerate(d["groups"], 1):
        exact = set(g["exact"])
        ds = [p["delta"] for p in g["pairs"]]
        print(f"  {k}. {len(g['members'])} programs, Δ {min(ds):.6f}-{max(ds):.6f}"
              + (" ((=) identical, Δ = 0)" if exact else ""))
        for m in g["members"]:
            print(f"       {m}" + (" (=)" if m in exact else ""))
    print(f"\nLeaks (Ω ≤ {float(args.leaks):g}): {len(value['leaks'])}")
    if value["leaks"]:
        print(table([(x["task"], x["delta"], x["nearest"]) for x in value["leaks"]], ("test program", "Ω", "nearest curriculum program"),
                     [False, True, False]))
    print("\nCoverage")
    print(table([(c["domain"], c["curriculum"], c["tests"], c["mean_within"], c["mean_omega"]) for c in value["coverage"]],
                 ("domain", "curriculum", "test", "mean Δ within", "mean Ω of tests"), [False, True, True, True, True]))
    print(f"\nLikely mislabelled (nearer to another domain than to their own): {len(value['mislabels'])}")
    if value["mislabels"]:
        print(table([(m["program"], m["domain"], m["same_domain"]["delta"], m["other_domain"]["delta"],
                       m["other_domain"]["nearest"]) for m in value["mislabels"]],
                     ("program", "domain", "Δ own domain", "Δ other", "nearest other"), [False, False, True, True, False]))
    print(f"\nOutliers (nearest program of their domain at Δ ≥ {float(args.outliers):g}): {len(value['outliers'])}")
    if value["outliers"]:
        print(table([(m["program"], m["domain"], m["same_domain"]["delta"], m["same_domain"]["nearest"])
                      for m in value["outliers"]], ("program", "domain", "Δ own domain", "nearest"), [False, False, True, False]))
    return 0
