"""``gindex-studio flatland …``: Flatland programs from the command line, no display needed.

- ``flatland draw FILE -o out.png``: run a ``.fbp`` / ``.lisp`` / flat JSON program and save its
  128×128 drawing (``--json`` / ``--lisp`` also write the flat program);
- ``flatland augment FILE -n N --seed S -o DIR``: N seeded variants (``.lisp``, ``.json``, ``.png``);
- ``flatland dataset -o DIR --seed S``: the paper's curriculum and test sets;
- ``flatland compare REFERENCE GENERATED``: Δ (flatland profile) and the image similarity.

``score``, ``matrix`` and ``omega`` take Flatland programs with ``--profile flatland``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from gindex_studio.core.flatland import WORLD

from gindex_studio.cli.common import SEED, InputError, add_json, add_pair, int_range, json_out



def add_parsers(sub) -> None:
    p = sub.add_parser(WORLD, help="Flatland programs: draw, augment, generate the data set, compare",
                       description="Flatland, the paper's toy world: programs of pen moves and turns (.fbp, "
                                   ".lisp or flat JSON) that draw 128×128 images. Score them with "
                                   "score / matrix / omega --profile flatland.")
    fsub = p.add_subparsers(dest="flatland_command", metavar="ACTION", required=True)
    d = fsub.add_parser("draw", help="draw a program to a 128×128 PNG",
                        description="Run a program and save its 128×128 drawing.")
    d.add_argument("file", metavar="FILE", help=".fbp, .lisp or flat .json program")
    d.add_argument("-o", "--output", required=True, metavar="FILE", help="PNG file to write")
    d.add_argument("--json", metavar="FILE", help="also write the flat program as JSON")
    d.add_argument("--lisp", metavar="FILE", help="also write the flat program as .lisp")
    a = fsub.add_parser("augment", help="seeded randomised variants of a program",
                        description="N seeded variants of a program (.lisp, .json and .png each).")
    a.add_argument("file", metavar="FILE", help=".fbp, .lisp or flat .json program")
    a.add_argument("-n", "--num-samples", type=int_range(1, MAX_VARIANTS), default=1, metavar="N",
                   help=f"how many variants, 1 to {MAX_VARIANTS:,} (default 1)")
    a.add_argument("--seed", type=SEED, default=0, metavar="N", help="random seed, 0 to 2**32 − 1 (default 0)")
    a.add_argument("-o", "--output-dir", required=True, metavar="DIR", help="folder to write the variants into")
    s = fsub.add_parser("dataset", help="the paper's curriculum (circles, lines) and test sets easy/medium/hard",
                        description="Generate the paper's Flatland experiment: a curriculum of circles and "
                                    "lines in train/ and the test tasks in test/easy, test/medium, test/hard.")
    s.add_argument("-o", "--output-dir", required=True, metavar="DIR",
                   help="folder to create (written whole: a fresh folder beside it, moved into place)")
    s.add_argument("--force", action="store_true", help="replace the output folder when it already holds files")
    s.add_argument("--seed", type=SEED, default=0, metavar="N", help="random seed, 0 to 2**32 − 1 (default 0)")
    s.add_argument("--per-domain", type=int_range(1, MAX_VARIANTS), default=50, metavar="N",
                   help="programs per curriculum domain (default 50: 500)")
    s.add_argument("--per-test-domain", type=int_range(1, MAX_VARIANTS), default=8, metavar="N",
                   help="tasks per test domain (default 8: 104)")
    c = fsub.add_parser("compare", help="Δ and image similarity of a generated program against a reference",
                        description="Δ (flatland profile) of a generated program against its reference, and "
                                    "the similarity of their drawings.")
    add_pair(c, "reference program", "generated program (read leniently: model output)")
    add_json(c)
    for q in (d, a, s, c):
        q.add_argument("--library", metavar="DIR", default=None,
                       help="folder for bare #include names (default: the bundled Flatland library)")


#: At most this many programs from one augment / per data set domain (each is three files).
MAX_VARIANTS = 100_000


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.flatland.errors import FlatlandError

    try:
        return _ACTIONS[args.flatland_command](args)
    except FlatlandError as e:
        raise InputError(str(e)) from None
    except OSError as e:  # one that names no file is about the command's output (a full disk)
        name = e.filename or getattr(args, "output", None) or getattr(args, "output_dir", "")
        raise InputError(f"{name}: {e.strerror or e}".lstrip(": ")) from None


def _draw(args) -> int:
    from gindex_studio.core.flatland.lisp import write_lisp
    from gindex_studio.core.flatland.render import rasterise, to_png_bytes
    from gindex_studio.core.flatland.resolve import load_file
    from gindex_studio.core.flatland.run import execute

    from gindex_studio.core.flows.files import atomic_write_bytes, check_output_name

    for path in (args.output, args.json, args.lisp):
        if path:
            check_output_name(path)  # a pipe or a device among them: refused before anything is written
    program = load_file(args.file, args.library)
    trace = execute(program)
    outputs = [(args.output, to_png_bytes(rasterise(trace.segments)))]
    if args.json:
        outputs.append((args.json, program.dumps().encode("utf-8")))
    if args.lisp:
        outputs.append((args.lisp, write_lisp(program).encode("utf-8")))
    for path, data in outputs:  # each whole or not at all: a full disk leaves the old file
        atomic_write_bytes(path, data)
    n, e = program.counts()
    print(f"wrote {args.output}: {len(trace.segments)} segments from {n} nodes, {e} edges")
    return 0


def _augment(args) -> int:
    from gindex_studio.core.flatland.augment import augment_to_folder

    written = augment_to_folder(args.file, args.num_samples, args.seed, args.output_dir, args.library)
    print(f"wrote {args.num_samples} variant(s) of {args.file} to {args.output_dir} ({len(written)} files, seed {args.seed})")
    return 0


def _dataset(args) -> int:
    from gindex_studio.core.flatland.dataset import generate, write_dataset

    from gindex_studio.core.flows.files import FolderNotEmptyError, write_folder

    tasks = generate(args.seed, args.per_domain, args.per_test_domain, args.library)
    try:
        write_folder(args.output_dir, lambda tmp: write_dataset(tasks, tmp), replace=args.force)
    except FolderNotEmptyError:
        raise InputError(f"{args.output_dir}: the folder is not empty; give --force to replace it whole, "
                         "or another folder") from None
    train = sum(t.split == "train" for t in tasks)
    print(f"wrote {args.output_dir}: curriculum {train} programs in train/, {len(tasks) - train} test tasks in "
          f"test/easy, test/medium, test/hard (seed {args.seed})")
    return 0


def _compare(args) -> int:
    from gindex_studio.core.flatland.files import read_generated_file
    from gindex_studio.core.flatland.render import image_similarity
    from gindex_studio.core.flatland.resolve import load_file
    from gindex_studio.core.flatland.score import draw, score

    ref = load_file(args.reference, args.library)
    gen = read_generated_file(args.generated, args.library)
    result = score(ref, gen.program)
    sim = image_similarity(draw(ref), draw(gen.program))
    if args.json:
        json_out({"delta": result.delta, "theta": result.theta, "exact": result.exact, "s": result.s_exact,
                   "image_similarity": sim, "syntax": gen.syntax.to_dict() if gen.syntax else None})
        return 0
    print(f"Δ = {result.delta:.6f}   θ = {result.theta:.6f}   (flatland profile, "
          f"{'exact' if result.exact else 'not exact'})   S = {result.s_exact} over {result.n_reference}·{result.n_generated}")
    print(f"image similarity = {sim:.6f}")
    if gen.syntax:
        print(f"syntax: line {gen.syntax.line}, column {gen.syntax.column}: {gen.syntax.message} "
              f"({gen.syntax.recovered_nodes} nodes recovered)")
    return 0


_ACTIONS = {"draw": _draw, "augment": _augment, "dataset": _dataset, "compare": _compare}
