"""The two walks of issue 56 (items 1, 2 and 7), counted: from a model's name to a ready encoder, and where a
result is written (the output folder followed through the code); stops, files, climbs and returns, traced from
real calls rather than read by hand.

    python benchmarks/code_walks.py          # on this checkout
    python benchmarks/code_walks.py --show   # every stop printed, with its floor

A walk is one call, traced with `sys.setprofile`: the functions defined in sentibench's own source (bench/,
tasks/, models/; the standard library and other packages are not stops) in the order the call first enters each
(a function called again, in a loop or later, is not read again). Consecutive functions of one file are one
**stop** (reading them is reading one file); **files** is how many
files the stops visit; a **climb** is a stop whose file sits on a higher floor of the import-linter layers
(pyproject.toml) than the stop before it, which the reader follows upwards against the architecture (a callback,
a plug-in lookup, a lazy import of a higher layer); a **return** is a stop that comes back to a file the walk has
already left once (the reader reads the same file twice). **Rooms** count the same walk a package at a time
(`sentibench.results`, `sentibench.models.catalog`, ...): stops, climbs and returns between packages, the unit
the issue's "visits 4 rooms" uses.

The first walk is `EncoderPool.get("all-minilm-l6-v2")` of `sentibench.run.runner`, where the issue's walk began
(the packaged MiniLM, cached vectors on; weights loaded, nothing encoded). The second follows the output folder:
in `bench run -m all-minilm-l6-v2 -t sgts-mr --limit 16 --output-folder F` (F empty), only the functions whose
arguments carry F, a path under it, or an object holding one (`holds_folder`) are stops. To compare two commits,
copy this file into the other checkout's benchmarks/ and run it there with that checkout installed. `--smoke` (CI:
the script still runs) is the same run.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("bench", "tasks", "models")


def floors() -> list[list[str]]:
    """The layers contract of pyproject.toml, top floor first, each a list of module prefixes."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")["layers"]
    return [[name.strip() for name in layer.split("|")] for layer in layers]


def module_of(path: Path) -> str | None:
    """`sentibench.x.y` for a file of this checkout's sources (bench/ is the package's root, tasks/ and models/
    its subpackages), else None."""
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        return None
    if relative.parts[0] not in SOURCES or relative.suffix != ".py":
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[0] == "bench":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["sentibench", *parts])


def floor_of(module: str, layers: list[list[str]]) -> int:
    """The floor's index counted from the bottom (core is 0); a module on no floor (sentibench itself) is on top."""
    for index, layer in enumerate(layers):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in layer):
            return len(layers) - 1 - index
    return len(layers)


def trace(call: Callable[[], object], start: Callable[[str], bool] = lambda module: True,
          carries: Callable[[dict], bool] = lambda arguments: True) -> list[str]:
    """The files (as modules) of the sentibench functions `call` enters whose arguments satisfy `carries`, each
    function at its first entry, consecutive repeats collapsed; the walk begins at the first call whose module
    satisfies `start`."""
    stops: list[str] = []
    begun = False
    known: dict[str, str | None] = {}
    read: set[object] = set()

    def profile(frame, event, arg):
        nonlocal begun
        if event != "call":
            return
        filename = frame.f_code.co_filename
        if filename not in known:
            known[filename] = module_of(Path(filename))
        module = known[filename]
        if module is None:
            return
        begun = begun or start(module)
        if not begun or frame.f_code in read or not carries(frame.f_locals):
            return
        read.add(frame.f_code)
        if not stops or stops[-1] != module:
            stops.append(module)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return stops


def counts(stops: list[str]) -> dict[str, int]:
    layers = floors()
    climbs = sum(floor_of(b, layers) > floor_of(a, layers) for a, b in zip(stops, stops[1:]))
    returns = sum(module in stops[:i - 1] for i, module in enumerate(stops) if i >= 1)
    return {"stops": len(stops), "files": len(set(stops)), "climbs": climbs, "returns": returns}


def rooms(stops: list[str]) -> list[str]:
    """The walk a package at a time (a top-level module is its own room), consecutive repeats collapsed."""
    out: list[str] = []
    for module in stops:
        room = module.rsplit(".", 1)[0] if module.count(".") >= 2 else module
        if not out or out[-1] != room:
            out.append(room)
    return out


def model_walk() -> list[str]:
    from sentibench.run.runner import EncoderPool

    return trace(lambda: EncoderPool({}, "cpu", True).get("all-minilm-l6-v2"))




def holds_folder(folder: Path) -> Callable[[dict], bool]:
    """Whether a call's arguments carry `folder`: the folder or a path under it, as a path or a string, or an
    object holding one as an attribute (a results-folder object)."""
    prefix = str(folder)

    def carried(value: object) -> bool:
        return isinstance(value, (str, Path)) and str(value).startswith(prefix)

    def check(arguments: dict) -> bool:
        for value in arguments.values():
            if carried(value) or any(carried(v) for v in getattr(value, "__dict__", {}).values()):
                return True
        return False

    return check


def folder_walk() -> list[str]:
    """Where a result is written: every sentibench function that `--output-folder` (or a path under it) passes
    through in `bench run -m all-minilm-l6-v2 -t sgts-mr --limit 16` into an empty folder (cached vectors)."""
    import tempfile

    from sentibench.cli import main as bench

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "runs"
        argv = ["run", "-m", "all-minilm-l6-v2", "-t", "sgts-mr", "--limit", "16", "--output-folder", str(folder)]
        return trace(lambda: bench(argv), carries=holds_folder(folder))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every stop, with its floor")
    parser.add_argument("--smoke", action="store_true", help="CI: the same run")
    args = parser.parse_args(argv)
    layers = floors()
    for label, stops in (("model name to encoder", model_walk()), ("output folder", folder_walk())):
        print(f"{label}: " + ", ".join(f"{value} {key}" for key, value in counts(stops).items())
              + "; by room: " + ", ".join(f"{value} {key}" for key, value in counts(rooms(stops)).items()
                                          if key != "files"))
        if args.show:
            for module in stops:
                print(f"  [{floor_of(module, layers)}] {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
