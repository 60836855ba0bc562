"""The same workload on a Ray cluster of 1, 2 and 3 nodes on this machine, measured (issue 31, item 3).

    python benchmarks/bench_nodes.py [--nodes 1,2,3] [-m MODELS] [-t TASKS] [--limit N] [--json PATH] [--smoke]

For each node count N: a fresh cluster (`ray start --head`, then N-1 `ray start --address`, one CPU
each, loopback, token authentication with a token of the benchmark's own), a throw-away SENTIBENCH_HOME
whose embedding cache starts empty (datasets and models linked from the real one), and one cold
`bench run --executor ray --address HEAD` as a process, timed from its start to its exit (the driver's
start-up and Ray's connection included; the cluster's own start-up is reported apart). Then the cluster
is stopped, by process (never `ray stop`, which would stop every Ray on the machine). Printed: wall
time per N, speed-up T(1)/T(N), efficiency T(1)/(N T(N)) against the ideal T(1)/N, whether every N's
result files equal N=1's (timing fields aside), and the load average before and after (other work on
the machine shows there). `--smoke` (CI: the script still runs) runs N=1 only, on the plug-in fixture's
48 reviews (tests/fixtures/plugin), and keeps no JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench_encode import SMOKE_DATASET, throwaway_home, use_smoke_dataset  # benchmarks/ is the script's folder

WORKLOAD_MODELS = "all-minilm-l6-v2,paraphrase-minilm-l3-v2,random"
WORKLOAD_TASKS = "sgts-mr,probe-mr,sgts-vader-tweets,probe-vader-tweets"
MARKER = "SENTIBENCH_BENCH_RAY_NODE"  # in every process a node starts: which cluster and node it belongs to


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cluster_processes(tag: str) -> list:
    """The processes of this cluster: those whose environment carries its marker, and their descendants
    (Ray's workers and agents overwrite their command line and environment when they rename themselves)."""
    import psutil

    found: dict[int, psutil.Process] = {}
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARKER, "").startswith(tag):
                found[process.pid] = process
                found |= {child.pid: child for child in process.children(recursive=True)}
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return list(found.values())


def stop_cluster(tag: str) -> int:
    """SIGKILL every process whose marker starts with `tag` (a whole cluster, or one node given its own full
    marker: a machine lost, not a clean shutdown); how many there were."""
    import psutil

    processes = cluster_processes(tag)
    for process in processes:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(processes, timeout=10)
    return len(processes)


def start_cluster(nodes: int, root: Path, env: dict[str, str], tag: str) -> str:
    """A head and `nodes - 1` worker nodes, one CPU each; the head's address."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    ray = [sys.executable, "-m", "ray.scripts.scripts", "start", "--num-cpus=1", "--node-ip-address=127.0.0.1",
           "--disable-usage-stats"]
    for k in range(nodes):
        where = ["--head", f"--port={port}", "--include-dashboard=false"] if k == 0 else [f"--address={address}"]
        done = subprocess.run([*ray, *where, f"--temp-dir={root / f'node{k}'}"],
                              env={**env, MARKER: f"{tag}-{k}", "RAY_AUTH_MODE": "token"},
                              capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise SystemExit(f"ray start (node {k}) failed: {done.stderr.strip()[-800:]}")
    return address


def measure(nodes: int, args: argparse.Namespace) -> dict:
    """One cold run of the workload on a fresh `nodes`-node cluster."""
    from sentibench.results.task_result import comparable_results

    home = throwaway_home()
    root = Path(tempfile.mkdtemp(prefix="sbnodes-"))  # short: Ray's socket paths live under it
    tag = uuid.uuid4().hex[:8]
    token = root / "auth_token"
    token.write_text(uuid.uuid4().hex + uuid.uuid4().hex)
    env = {key: value for key, value in os.environ.items() if key != "RAY_AUTH_MODE"}
    env |= {"SENTIBENCH_HOME": str(home), "RAY_AUTH_TOKEN_PATH": str(token), "OMP_NUM_THREADS": "1",
            "TOKENIZERS_PARALLELISM": "false"}
    out = home / "results"
    try:
        started = time.perf_counter()
        address = start_cluster(nodes, root, env, tag)
        start_up = time.perf_counter() - started
        argv = [str(Path(sys.executable).parent / "bench"), "run", "-m", args.models, "-t", args.tasks,
                "--executor", "ray", "--address", address, "--output-folder", str(out)]
        argv += ["--limit", str(args.limit)] if args.limit else []
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{nodes} node(s): bench run failed: {done.stderr.strip()[-800:]}")
        return {"nodes": nodes, "wall_s": round(wall, 2), "cluster_start_s": round(start_up, 2),
                "results": comparable_results(out), "summary": done.stderr.strip().splitlines()[-1]}
    finally:
        stop_cluster(tag)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)  # links are removed, never followed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", default="1,2,3", help="node counts, one CPU each")
    parser.add_argument("-m", "--models", default=WORKLOAD_MODELS)
    parser.add_argument("-t", "--tasks", default=WORKLOAD_TASKS)
    parser.add_argument("--limit", type=int, default=None, help="cap examples per task")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument("--smoke", action="store_true", help="one node, fixture data: a check that it runs")
    args = parser.parse_args(argv)
    if args.smoke:
        use_smoke_dataset()
        args.nodes, args.models, args.tasks, args.json = "1", "random", f"sgts-{SMOKE_DATASET}", None

    load_before = os.getloadavg()
    runs = [measure(int(n), args) for n in args.nodes.split(",")]
    one = runs[0]
    rows = []
    for run in runs:
        speed_up = one["wall_s"] / run["wall_s"]
        rows.append({"nodes": run["nodes"], "wall_s": run["wall_s"], "cluster_start_s": run["cluster_start_s"],
                     "speed_up": round(speed_up, 3), "efficiency": round(speed_up * one["nodes"] / run["nodes"], 3),
                     "identical_to_first": run["results"] == one["results"], "summary": run["summary"]})
    report = {"models": args.models, "tasks": args.tasks, "limit": args.limit, "cores": os.cpu_count(),
              "load_before": load_before, "load_after": os.getloadavg(), "runs": rows}
    for row in rows:
        print(f"{row['nodes']} node(s): {row['wall_s']:.1f} s (cluster start {row['cluster_start_s']:.1f} s), "
              f"speed-up {row['speed_up']:.2f}, efficiency {row['efficiency']:.2f}, results identical to "
              f"{one['nodes']} node(s): {row['identical_to_first']}")
    print(f"load average before {load_before}, after {report['load_after']} on {os.cpu_count()} cores")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if all(row["identical_to_first"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
