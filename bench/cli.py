"""The `bench` command line. Every user error is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from sentibench.core.errors import BenchError, printable
from sentibench.core.io import STDOUT, check_target, write_output
from sentibench.core.seeds import parse_seed
from sentibench.embed.devices import DTYPES

EXIT_USAGE = 2


def _quiet_libraries() -> None:
    """Through the environment, so that no library is imported before a command needs it (the modules
    that load data and models turn the libraries' own progress bars off where they import them)."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")  # no request the harness does not need (agent detection)


def _split_names(text: str, what: str = "name") -> list[str]:
    """Comma-separated names; a list that names nothing is an error, never a run of nothing."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise BenchError(f"no {what} given in {text!r}: give comma-separated names")
    return names


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum` (batch sizes and limits 1, seeds 0)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def _print_scores(written: list[Path], skipped: list[Path]) -> None:
    """The scores a run wrote (and those it found already done), main score x 100 and its 95% interval."""
    from tabulate import tabulate

    from sentibench.results.task_result import read_result

    rows = []
    for path, status in [(p, "written") for p in written] + [(p, "already done") for p in skipped]:
        result = read_result(path)
        score, interval = result.main_score(), result.confidence_interval()
        model = result.provenance.model.name if result.provenance.model else path.parent.parent.name
        bounds = ("" if interval is None or interval.low is None or interval.high is None
                  else f"[{100 * interval.low:.2f}, {100 * interval.high:.2f}]")
        rows.append([printable(model), result.task_name, result.provenance.task.main_score or "",
                     "n/a" if score is None else f"{100 * score:.2f}", bounds, status])
    if rows:
        print(tabulate(rows, headers=["model", "task", "metric", "score x 100", "95% CI", "status"], tablefmt="simple",
                       disable_numparse=True))


def cmd_run(args: argparse.Namespace) -> int:
    from sentibench.run.executors import get_executor
    from sentibench.run.runner import DEFAULT_MODEL, default_tasks, run
    from sentibench.tasks.benchmarks import expand_required
    from sentibench.tasks.registry import resolve

    models = _split_names(args.model, "model") if args.model is not None else [DEFAULT_MODEL]
    if args.benchmark is not None and args.tasks is not None:
        raise BenchError("give -b/--benchmark or -t/--tasks, not both (a benchmark is its own task list)")
    if args.benchmark is None and args.tasks is None:
        tasks = default_tasks()
    else:
        names = ["required"] if args.benchmark is not None else _split_names(args.tasks, "task")
        tasks = resolve(expand_required(names, args.benchmark))
    executor = get_executor(args.executor, args.address)
    started = time.perf_counter()
    report = run(models, tasks, Path(args.output_folder), overwrite=args.overwrite_strategy, seed=args.seed,
                 limit=args.limit, batch_size=args.batch_size, device=args.device, use_cache=not args.no_cache,
                 dtype=args.dtype, executor=executor, intervals=not args.no_ci, smoke_training=args.smoke_training)
    print(f"{len(report.written)} result(s) written, {len(report.skipped)} already done, "
          f"{len(report.unavailable)} unavailable here, {len(report.failed)} failed"
          f"{f', {len(report.in_flight)} in flight in another process' if report.in_flight else ''}; "
          f"{report.encoded} text(s) encoded; {time.perf_counter() - started:.1f}s", file=sys.stderr)
    _print_scores(report.written, report.skipped)
    for line in report.failed:
        print(f"error: {line}", file=sys.stderr)
    if report.unavailable and not (report.written or report.skipped):
        print("error: nothing that was asked for can run here (see above)", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_USAGE if report.failed else 0


def _results_folders(given: list[str] | None) -> list[Path]:
    """The `--results` folders (default: results/), each checked to hold results before anything is read."""
    folders = [Path(folder) for folder in (given or ["results"])]
    for folder in folders:
        if not folder.is_dir():
            raise BenchError(f"no results folder '{folder}'; run `bench run` first")
        if not any(folder.rglob("*.json")):
            raise BenchError(f"no results under '{folder}'; run `bench run` first (nothing was written)")
    return folders


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from sentibench.report.leaderboard import build, render_board
    from sentibench.tasks.benchmarks import get_benchmark

    get_benchmark(args.benchmark)  # an unknown name fails here, before anything is read
    folders = _results_folders(args.results)
    if args.html is not None and args.site is not None and args.html not in ("", args.site):
        raise BenchError(f"--html {args.html} and --site {args.site} name two sites: give one")
    site = args.site or args.html or None
    if sum(bool(x) for x in (site is not None or args.html is not None, args.scatter, args.format != "md")) > 1:
        raise BenchError("give one of --html/--site, --scatter and --format csv|json")
    out = args.scatter or (args.output if args.format == "md" or args.output != "leaderboard.md"
                           else f"leaderboard.{args.format}")
    if site is None and args.html is None and out != STDOUT:
        check_target(Path(out))  # before the board is built
    board = build(folders, args.benchmark, args.include_in_domain)
    if args.scatter:
        from sentibench.report.tradeoff import write_png

        print(f"wrote {write_png(board, args.scatter)}", file=sys.stderr)
        return 0
    if site is not None or args.html is not None:
        from sentibench.report.leaderboard_html import write_site

        page = write_site(board, Path(site or "site"), Path(args.figures) if args.figures else None)
        print(f"wrote {page}, a page per model under {page.parent / 'models'} and the result files they link "
              f"to under {page.parent / 'results'}; the folder is self-contained", file=sys.stderr)
        return 0
    if args.format != "md":
        from sentibench.report.table_export import write_tables

        print(f"wrote {write_tables(board, out, args.format)}", file=sys.stderr)
        return 0
    print(f"wrote {write_output(out, render_board(board))}", file=sys.stderr)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from tabulate import tabulate_formats

    from sentibench.report.compare import compare, compare_with_frozen_twins, render

    if args.format not in tabulate_formats:
        raise BenchError(f"unknown --format {args.format!r}; choose one of {', '.join(sorted(tabulate_formats))}")
    folders = [Path(folder) for folder in args.results or ["results"]]
    for folder in folders:
        if not folder.is_dir():
            raise BenchError(f"no results folder '{folder}'; run `bench run` first")
    tasks = _split_names(args.tasks) if args.tasks else None
    if args.frozen_twins and args.model_b is not None:
        raise BenchError("--frozen-twins compares one model with itself; name one model, not two")
    if not args.frozen_twins and args.model_b is None:
        raise BenchError("compare needs two models (or one with --frozen-twins)")
    if args.model_a == args.model_b:
        raise BenchError(f"compare needs two different models; got '{args.model_a}' twice")
    if args.frozen_twins:
        print(render(compare_with_frozen_twins(folders, args.model_a, tasks), "fine-tuned", "frozen", args.format))
        return 0
    print(render(compare(folders, args.model_a, args.model_b, tasks), args.model_a, args.model_b, args.format))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from tabulate import tabulate

    if args.what == "tasks":
        from sentibench.tasks.registry import all_tasks

        rows = [(t.name, t.metadata.type, t.metadata.dataset, t.metadata.main_score, ",".join(t.metadata.groups))
                for t in all_tasks().values()]
        headers = ["task", "type", "dataset", "main score", "groups"]
    elif args.what == "models":
        from sentibench.models.catalog.cards import all_cards

        rows = [(c.name, c.loader, c.revision, c.embedding_size, c.hub_id or "", ",".join(c.training_data[:3]))
                for c in all_cards().values()]
        headers = ["model", "loader", "revision", "dim", "hub id", "training data"]
    elif args.what == "benchmarks":
        from sentibench.tasks.benchmarks import BENCHMARKS, CURRENT

        rows = [(b.name + (" (current)" if b.name == CURRENT else ""), len(b.tasks),
                 ", ".join(f"{a.name} {len(a.tasks)}" for a in b.axes), len(b.diagnostics), b.released,
                 b.derived_from or "", b.manifest_sha256[:12]) for b in BENCHMARKS.items().values()]
        headers = ["benchmark", "tasks", "axes (tasks)", "diagnostics", "released", "derived from", "manifest"]
    elif args.what == "datasets":
        from sentibench.data import dataset_names, get_spec

        rows = [(s.name, s.kind, s.language, s.size or "", "offline" if s.load_rows else "hub only",
                 s.hub.repo_id if s.hub else "", s.license, s.description[:50]) for s in map(get_spec, dataset_names())]
        headers = ["dataset", "kind", "lang", "rows", "source", "hub id", "licence", "description"]
    else:
        from sentibench.training.methods import methods

        rows = [(m.name, ",".join(m.presets), m.reference) for m in methods().values()]
        headers = ["method", "presets", "reference"]
    shown = [[printable(cell) if isinstance(cell, str) else cell for cell in row] for row in rows]  # user cards' text
    print(tabulate(shown, headers=headers, tablefmt="simple"))
    return 0


def cmd_data_prepare(args: argparse.Namespace) -> int:
    """Prepare the named datasets; `all` prepares every one with an offline source and lists the hub-only
    ones it could not reach (a dataset named explicitly that cannot be prepared is an error)."""
    from sentibench.core.errors import UnavailableError
    from sentibench.data import dataset_names, get_dataset

    everything = "all" in args.names
    names = dataset_names() if everything else list(dict.fromkeys(args.names))
    skipped = []
    for name in names:
        try:
            dataset = get_dataset(name)
        except UnavailableError as error:
            if not everything:
                raise
            skipped.append(name)
            print(f"{name}: skipped, {error}", file=sys.stderr)
            continue
        sizes = ", ".join(f"{k} {len(v)}" for k, v in dataset.splits.items())
        print(f"{name}: {sizes} (sha256 {dataset.content_hash[:12]})")
    if skipped:
        print(f"{len(names) - len(skipped)} dataset(s) prepared; {len(skipped)} hub-only one(s) not reachable "
              f"from here: {', '.join(skipped)}", file=sys.stderr)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from sentibench.models.catalog.trained import train
    from sentibench.training.options import parse_option_pairs

    card = train(args.method, args.base, args.data, args.preset, seed=args.seed,
                 options=parse_option_pairs(args.option), out_dir=Path(args.output) if args.output else None,
                 name=args.name, device=args.device)
    print(f"trained '{card.name}': run it with `bench run -m {card.name} -t sgts`")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if args.kind == "pca":
        from sentibench.report.plot_pca import plot_pca
        from sentibench.run.runner import DEFAULT_MODEL

        models = _split_names(args.model, "model") if args.model is not None else [DEFAULT_MODEL]
        datasets = (_split_names(args.datasets, "dataset") if args.datasets is not None
                    else ["mr", "vader-tweets", "vader-amazon"])
        paths = plot_pca(models, datasets, out, args.limit)
    else:
        from sentibench.report.plot_sgts_fewshot import plot_sgts_vs_fewshot

        name = "sgts_vs_fewshot_frozen.png" if args.frozen else "sgts_vs_fewshot.png"
        paths = [plot_sgts_vs_fewshot(Path(args.results), out / name, frozen=args.frozen)]
    for path in paths:
        print(path)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from sentibench.mteb.export import export_results

    report = export_results(Path(args.results), Path(args.output))
    print(f"{len(report.written)} result(s) of {len(report.models)} model(s) written under {args.output}/results, "
          f"{len(report.skipped)} skipped (smoke or non-float32 runs, tasks with no MTEB task type); "
          f"load them with mteb.ResultCache('{args.output}')",
          file=sys.stderr)
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from sentibench.core.provenance import version_note
    from sentibench.submission.reproduce import reproduce_file

    agreed, changes = 0, []
    for result in args.result:
        outcome = reproduce_file(Path(result), device=args.device, batch_size=args.batch_size,
                                 use_cache=args.use_cache, model=args.model)
        print(outcome.line(), flush=True)
        agreed += outcome.agrees
        changes += outcome.version_changes
    if note := version_note(changes):
        print(note)
    if len(args.result) > 1:
        print(f"{agreed} of {len(args.result)} result(s) agree")
    return 0 if agreed == len(args.result) else 1


def cmd_submit(args: argparse.Namespace) -> int:
    from sentibench.submission.submit import archive_path, submit

    folder, weights = submit(args.name, Path(args.results), Path(args.output), with_weights=args.with_weights,
                             archive=args.archive, replace=args.replace, benchmark=args.benchmark)
    print(f"wrote {folder}" + (f" and {archive_path(folder)}" if args.archive else "")
          + f"; {weights}; check it with `bench verify {folder}`")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from sentibench.core.provenance import version_note
    from sentibench.submission.verify import DEFAULT_FRACTION, DEFAULT_MINIMUM, verify

    verdict = verify(Path(args.submission), Path(args.results), Path(args.leaderboard) if args.leaderboard else None,
                     fraction=DEFAULT_FRACTION if args.fraction is None else args.fraction,
                     minimum=DEFAULT_MINIMUM if args.minimum is None else args.minimum, seed=args.seed,
                     device=args.device)
    for rerun in verdict.reruns:
        print(rerun.line())
    if note := version_note(change for rerun in verdict.reruns for change in rerun.version_changes):
        print(note)
    if verdict.status == "verified":
        print(f"verified '{verdict.card.name}': re-ran {len(verdict.reruns)} of {verdict.tasks} task(s), "
              f"all within tolerance; {verdict.seconds:.1f}s; merged into {verdict.merged_into}")
    elif verdict.status == "sampled":
        print(f"accepted '{verdict.card.name}' SAMPLED, not verified: re-ran {len(verdict.reruns)} of "
              f"{verdict.tasks} task(s) (sample seed {verdict.seed}), all within tolerance; {verdict.seconds:.1f}s; "
              f"merged into {verdict.merged_into} and marked sampled on the leaderboard")
    else:
        print(f"accepted '{verdict.card.name}' UNVERIFIED ({verdict.reason}); no task re-run; merged into "
              f"{verdict.merged_into} and marked unverified on the leaderboard")
    print(printable(verdict.installed))
    return 0


def cmd_card_new(args: argparse.Namespace) -> int:
    from sentibench.models.catalog.scaffold import write_new_card

    path = write_new_card(args.name, args.source, args.output, device=args.device)
    print(f"wrote {path}: fill in every 'FILL IN:' field, then `bench card check {path}`",
          file=sys.stderr if args.output == STDOUT else sys.stdout)
    return 0


def cmd_card_check(args: argparse.Namespace) -> int:
    from sentibench.core.errors import Rejected
    from sentibench.models.catalog.cards import check_card_file

    problems = check_card_file(Path(args.file))
    if problems:
        raise Rejected(problems)
    print(f"{args.file}: ok")
    return 0


def _method_command(run: str) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        from sentibench.run.services import EngineServices
        from sentibench.training.methods import load_entry_point

        return load_entry_point(run)(args, EngineServices())

    return call


def _add_method_commands(sub: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction],
                         argv: list[str] | None = None) -> None:
    """Every registered method's own commands (`training.methods.Command`), each at its declared path: the
    command line names no method. Given the command line `argv`, only the command it selects gets its options
    (a method's options may import its own modules; no other command pays for that); without one, all do."""
    from sentibench.training.methods import methods

    for method in methods().values():
        for command in method.commands:
            *group_path, leaf = command.path
            parent = sub
            for depth, name in enumerate(group_path):
                key = " ".join(group_path[:depth + 1])
                if key not in groups:
                    groups[key] = parent.add_parser(name, help=f"{name} commands").add_subparsers(
                        dest=f"{key.replace(' ', '_')}_command", required=True)
                parent = groups[key]
            if leaf in parent.choices:
                raise BenchError(f"method '{method.name}' declares the command `bench {' '.join(command.path)}`, which "
                                 "another command already is; rename one of them")
            parser = parent.add_parser(leaf, help=command.help)
            if argv is None or [word for word in argv if not word.startswith("-")][:len(command.path)] == list(
                    command.path):
                command.arguments(parser)
            parser.set_defaults(func=_method_command(command.run))


class _ShowsDefaults(argparse.HelpFormatter):
    """Each option's help ends with its default, unless the help already states it or there is none to state."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        quiet = (action.default is None or action.default is False or action.default == []
                 or action.default == argparse.SUPPRESS or "default" in text)
        return text if quiet or not action.option_strings else f"{text} (default: %(default)s)"


def _has_subcommands(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(action, argparse._SubParsersAction) for action in parser._actions)


def _every_parser(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _every_parser(child)


class _Version(argparse.Action):
    """`bench --version`: the harness's version and the current benchmark, read only when asked."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from sentibench.core.version import __version__
        from sentibench.tasks.benchmarks import CURRENT

        print(f"sentibench {__version__} (current benchmark: {CURRENT})")
        parser.exit()


def _shared_options() -> dict[str, argparse.ArgumentParser]:
    """The options several commands take, declared once (argparse parent parsers): a command lists the ones
    it takes, so `--device` means the same everywhere."""
    def parent(*args: str, **kwargs) -> argparse.ArgumentParser:
        made = argparse.ArgumentParser(add_help=False)
        made.add_argument(*args, **kwargs)
        return made

    return {
        "device": parent("--device", help="cpu, cuda, cuda:1, mps (default: the best available)"),
        "batch": parent("--batch-size", type=at_least(1), default=32, help="texts per forward pass"),
        "folder": parent("--results", default="results", metavar="FOLDER",
                         help="the sentibench results folder, <folder>/<model>/<revision>/<task>.json"),
        "folders": parent("--results", action="append", metavar="FOLDER",
                          help="results folder to read; repeat it for several side by side, e.g. --results results "
                               "--results mine ('NAME [FOLDER]' names a model of one) (default: results)"),
        "benchmark": parent("--benchmark", help="a benchmark (see `bench list benchmarks`; default: the current "
                                                "release, marked there)"),
    }


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given `argv`, method commands other than the one it selects get no options, and
    a built-in command without subcommands (`bench run`, `bench list`, ...) is parsed without registering the
    methods at all (a method's command lives at a path of its own or under a built-in group, never under one)."""
    parser = argparse.ArgumentParser(prog="bench", description="Benchmark sentiment-aware sentence embeddings.")
    parser.add_argument("--version", action=_Version, nargs=0, help="the harness's version and current benchmark")
    sub = parser.add_subparsers(dest="command", required=True)
    shared = _shared_options()

    run = sub.add_parser("run", help="evaluate models on tasks (default: all-minilm-l6-v2 on the default suite)",
                         parents=[shared["device"], shared["batch"]])
    run.add_argument("-m", "--model", help="comma-separated model cards, local folders or hub ids")
    run.add_argument("-t", "--tasks", help="comma-separated task or group names (see `bench list tasks`); "
                                           "`required`: the current benchmark's tasks (default: "
                                           "sgts on every dataset with an offline source)")
    run.add_argument("-b", "--benchmark", help="run a benchmark's tasks, e.g. sentibench-lite-v1 (see `bench list "
                                               "benchmarks`; instead of -t)")
    run.add_argument("--dtype", choices=DTYPES,
                     help="inference dtype (default: the card's, float32); bfloat16 is faster, results are "
                          "filed under <revision>-bfloat16 and marked on the leaderboard")
    run.add_argument("--output-folder", default="results",
                     help="where results go, <folder>/<model>/<revision>/<task>.json")
    run.add_argument("--overwrite-strategy", choices=["always", "never", "only-missing"], default="only-missing",
                     help="only-missing: run what has no current result (resume); always: re-run everything; never: "
                          "keep every existing result, even one made under an older protocol version")
    run.add_argument("--seed", type=parse_seed, default=0,
                     help="seed of every random draw the tasks make (few-shot draws, probes, bootstrap units)")
    run.add_argument("--limit", type=at_least(1),
                     help="cap evaluation examples per task (smoke runs; kept off the leaderboard)")
    run.add_argument("--smoke-training", type=at_least(1), metavar="STEPS",
                     help="train each trained card, and fine-tune it in few-shot tasks, with every training loop "
                          "capped at STEPS steps (its own checkpoint, revision <revision>-smokeSTEPS): a smoke "
                          "test of the whole pipeline, kept off the leaderboard like --limit")
    run.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    run.add_argument("--no-ci", action="store_true",
                     help="skip confidence intervals and unit values (bench compare then cannot pair them)")
    run.add_argument("--executor", choices=["local", "ray"], default="local",
                     help="local: in this process (default); ray: each item a Ray task (the ray extra)")
    run.add_argument("--address", help="with --executor ray: a Ray cluster's head, host:port or ray://host:10001 "
                                       "(default: start a local Ray)")
    run.set_defaults(func=cmd_run)

    board = sub.add_parser("leaderboard", help="render leaderboard.md (or a web site, CSV or JSON) from result JSONs",
                           parents=[shared["folders"], shared["benchmark"]])
    board.add_argument("--output", default="leaderboard.md",
                       help="file to write, - for standard output (with --format csv|json: leaderboard.csv|json "
                            "unless given)")
    board.add_argument("--format", choices=["md", "csv", "json"], default="md",
                       help="md: the Markdown board; csv / json: every table as one record per (table, model, column)")
    board.add_argument("--html", nargs="?", const="", metavar="SITE",
                       help="write the board as a static web site instead (SITE/index.html; default folder: site)")
    board.add_argument("--site", metavar="DIR", help="the web site's folder (implies --html); it is self-contained: "
                                                     "the result files it links to are copied in")
    board.add_argument("--figures", default="docs/figures", help="folder of PNG figures to embed in the web page")
    board.add_argument("--include-in-domain", action="store_true",
                       help="count in-domain results (a model trained on the task's dataset) in the headline axes")
    board.add_argument("--scatter", metavar="PNG", help="write the trade-off scatter (SgTS and retrieval P "
                                                        "against STS-B and S) as a PNG instead (- for standard "
                                                        "output)")
    board.set_defaults(func=cmd_leaderboard)

    comparing = sub.add_parser("compare", help="paired comparison of two models' results, task by task",
                               parents=[shared["folders"]])
    comparing.add_argument("model_a", help="model name as its results record it (`model@revision`, or 'model "
                                           "[FOLDER]' for one of several folders)")
    comparing.add_argument("model_b", nargs="?", help="the model to compare with (none with --frozen-twins)")
    comparing.add_argument("--frozen-twins", action="store_true",
                           help="MODEL_A's fine-tuned few-shot results against their frozen twins (same draws and "
                                "seeds, paired by seed)")
    comparing.add_argument("-t", "--tasks", help="comma-separated task or group names (default: all shared)")
    comparing.add_argument("--format", default="github", help="tabulate table format: github, latex, plain ...")
    comparing.set_defaults(func=cmd_compare)

    listing = sub.add_parser("list", help="list tasks, benchmarks, models, datasets or methods")
    listing.add_argument("what", choices=["tasks", "benchmarks", "models", "datasets", "methods"], help="what to list")
    listing.set_defaults(func=cmd_list)

    data = sub.add_parser("data", help="dataset commands").add_subparsers(dest="data_command", required=True)
    groups = {"data": data}
    prepare = data.add_parser("prepare", help="download, parse, split and cache datasets ('all' for every one)")
    prepare.add_argument("names", nargs="+", help="dataset names (see `bench list datasets`) or all")
    prepare.set_defaults(func=cmd_data_prepare)

    train = sub.add_parser("train", help="train a method (see `bench list methods`) into a checkpoint + card",
                           parents=[shared["device"]])
    train.add_argument("method", help="method name, e.g. senticse")
    train.add_argument("--base", default="all-minilm-l6-v2", help="model card, local folder or hub id to start from")
    train.add_argument("--data", default="mr", help="training dataset (see `bench list datasets`)")
    train.add_argument("--preset", default="cpu", help="hyper-parameter preset: cpu (this machine), plateau (cpu "
                       "run until validation stops improving, where the method has one) or paper (GPU)")
    train.add_argument("--seed", type=parse_seed, default=0, help="training seed (initialisation, batches, masks)")
    train.add_argument("--option", action="append", default=[], help="method option KEY=VALUE (repeatable)")
    train.add_argument("--name", help="name of the resulting model card")
    train.add_argument("--output", help="checkpoint folder (default: the sentibench cache)")
    train.set_defaults(func=cmd_train)

    plot = sub.add_parser("plot", help="draw figures to PNG", parents=[shared["folder"]])
    plot.add_argument("kind", choices=["pca", "sgts-vs-fewshot"],
                      help="pca: 2-d PCA of datasets' vectors by label; sgts-vs-fewshot: SgTS against few-shot "
                           "accuracy")
    plot.add_argument("-m", "--model", help="models for pca (comma-separated)")
    plot.add_argument("--datasets", help="datasets for pca (comma-separated)")
    plot.add_argument("--limit", type=at_least(1), default=1000, help="points per dataset for pca")
    plot.add_argument("--frozen", action="store_true",
                      help="sgts-vs-fewshot: use the frozen (logistic-regression) k-shot twins")
    plot.add_argument("--output", default="plots", help="folder to write the PNGs into")
    plot.set_defaults(func=cmd_plot)
    again = sub.add_parser("reproduce", help="re-run results from their provenance and compare the scores",
                           parents=[shared["device"], shared["batch"]])
    again.add_argument("result", nargs="+", help="result JSON files")
    again.add_argument("-m", "--model", help="the model to re-run them with, when no card here names it: a local "
                                             "folder or hub id (its weights must be the recorded ones)")
    again.add_argument("--use-cache", action="store_true",
                       help="read cached embeddings (default: encode every text again from the weights)")
    again.set_defaults(func=cmd_reproduce)

    send = sub.add_parser("submit", help="check a model's results and package card + results + manifest",
                          parents=[shared["folder"], shared["benchmark"]])
    send.add_argument("name", help="the model card's name")
    send.add_argument("--output", default="submissions", help="folder to write the submission under")
    send.add_argument("--with-weights", action="store_true", help="include the checkpoint's safetensors")
    send.add_argument("--archive", action="store_true", help="also write NAME.zip")
    send.add_argument("--replace", action="store_true",
                      help="replace an existing submission of this name (folder and zip) in one step")
    send.set_defaults(func=cmd_submit)

    check_in = sub.add_parser("verify", help="check a submission, re-run its tasks, merge it if they agree",
                              parents=[shared["folder"], shared["device"]])
    check_in.add_argument("submission", help="a submission folder or zip")
    check_in.add_argument("--leaderboard", metavar="FILE",
                          help="also regenerate this leaderboard file from RESULTS (default: none; verify never "
                               "replaces a file it was not given)")
    # defaults live in sentibench.submission.verify, imported only when verifying (it pulls in the whole run machinery)
    check_in.add_argument("--fraction", type=float,
                          help="fraction of the tasks to re-run, 0 to 1 (default: 1): every task; below 1 the "
                               "entry is merged as 'sampled', not verified")
    check_in.add_argument("--minimum", type=int, help="with --fraction: re-run at least this many tasks (default: 3)")
    check_in.add_argument("--seed", type=parse_seed, help="sample seed (default: fresh, printed and recorded)")
    check_in.set_defaults(func=cmd_verify)

    card = sub.add_parser("card", help="write or check a model card").add_subparsers(dest="card_command",
                                                                                    required=True)
    new = card.add_parser("new", help="write a card measured from a local folder or hub id (human fields blank)")
    new.add_argument("name", help="the new card's name (lower case, digits, '.', '_', '-')")
    new.add_argument("--from", dest="source", required=True, help="model folder or hub id (owner/name)")
    new.add_argument("--output", help="card file to write, - for standard output (default: "
                                      "$SENTIBENCH_HOME/cards/NAME.yaml)")
    new.add_argument("--device", default="cpu", help="device to load the model on to measure it")
    new.set_defaults(func=cmd_card_new)
    check = card.add_parser("check", help="validate a card file (one line per problem, exit 2)")
    check.add_argument("file", help="the card's YAML file")
    check.set_defaults(func=cmd_card_check)

    export = sub.add_parser("export", help="write results in another tool's layout", parents=[shared["folder"]])
    export.add_argument("format", choices=["mteb"], help="mteb: a tree mteb.ResultCache(OUTPUT) loads")
    export.add_argument("--output", required=True, help="folder to write (results go to OUTPUT/results)")
    export.set_defaults(func=cmd_export)
    first = next((word for word in argv if not word.startswith("-")), None) if argv is not None else None
    if first is None or first not in sub.choices or _has_subcommands(sub.choices[first]):
        _add_method_commands(sub, groups, argv)  # a built-in command without subcommands has no method's in it
    for each in _every_parser(parser):
        each.formatter_class = _ShowsDefaults
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        words = sys.argv[1:] if argv is None else argv
        args = build_parser(words).parse_args(words)  # it lists plug-ins' commands: a broken one is one line
        _quiet_libraries()
        return args.func(args)
    except BenchError as error:
        for line in getattr(error, "problems", [str(error)]):
            print(f"error: {printable(line)}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:  # a folder that is read-only, full, or not a folder: the user's to fix
        where = f" ({error.filename})" if error.filename else ""
        print(printable(f"error: cannot read or write a file{where}: {error.strerror or error}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: finished results are saved; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
