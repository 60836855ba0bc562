"""How long the README's test command takes, on which machine: the measurement the README quotes.

    python benchmarks/suite_time.py --measure   # runs `python -m pytest` (about 15 minutes on 2 cores), writes
                                                # benchmarks/results/suite-time-<commit>.json
    python benchmarks/suite_time.py --docs      # the README's sentence from the newest committed measurement

Run `--measure` on a clean checkout, on the machine you name, with nothing else running. `--smoke` (CI: the script
still runs) prints the README's sentence and measures nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "benchmarks" / "results"
PAGE, BLOCK = "README.md", "suite-time"
COMMAND = ["python", "-m", "pytest"]


def machine() -> str:
    """The CPU model and core count, from /proc/cpuinfo where there is one."""
    cpuinfo = Path("/proc/cpuinfo")
    names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
             if line.startswith("model name")] if cpuinfo.is_file() else []
    return f"{os.cpu_count()} cores, {names[0] if names else platform.processor() or platform.machine()}"


def measure() -> Path:
    """Run the README's test command here and record its wall time, exit code, commit and machine."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    load_before = os.getloadavg()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *COMMAND[1:]], cwd=ROOT)
    record = {"command": " ".join(COMMAND), "wall_seconds": round(time.perf_counter() - started, 1),
              "exit_code": done.returncode, "commit": commit, "machine": machine(),
              "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
              "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "source": "python benchmarks/suite_time.py --measure"}
    path = MEASURED / f"suite-time-{commit}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def sentence(path: Path, record: dict, root: Path) -> str:
    minutes, seconds = divmod(round(record["wall_seconds"]), 60)
    return (f"{minutes} min {seconds} s on {record['machine']}, measured at {record['commit']} "
            f"(`{path.relative_to(root)}`)")


def doc_blocks(root: Path) -> dict[str, dict[str, str]]:
    """The README's test time, from the newest committed measurement (`measured_at`; a record without one is
    older than any with one)."""
    records = {path: json.loads(path.read_text(encoding="utf-8"))
               for path in (root / "benchmarks" / "results").glob("suite-time-*.json")}
    path = max(records, key=lambda p: (records[p].get("measured_at") or "", p.name))
    return {PAGE: {BLOCK: sentence(path, records[path], root)}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="run the test command here and record it")
    parser.add_argument("--docs", action="store_true", help=f"rewrite {PAGE}'s {BLOCK} block")
    parser.add_argument("--smoke", action="store_true", help="print the README's sentence; measure nothing")
    args = parser.parse_args()
    if args.measure:
        print(f"wrote {measure()}")
    print(doc_blocks(ROOT)[PAGE][BLOCK])
    if args.docs and not args.smoke:
        from doc_blocks import write  # a sibling script

        for page in write(doc_blocks(ROOT), ROOT):
            print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
