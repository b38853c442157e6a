"""Route computation time and peak memory on generated fabrics, one process per size:
fat-trees k = 8, 16, 32, 64 and a 4-plane fat-tree; then the `sprayfabric topo routes`
command from process start to exit for the k=64 summary and the k=32 `--json` output.

The work is single-threaded (numpy/scipy element-wise and sparse code; BLAS threads set
to 1). "load" is reading and checking the topology file, "routes" is `compute_routes`.
CPU seconds are printed beside wall seconds because on a shared machine the wall time
also counts other processes' turns. Peak RSS is the process's maximum resident size,
interpreter, numpy and scipy included (the figure after the imports alone is printed
for reference).

Run: `python -m bench.routing_bench [--sizes 8,16,32,64] [--planes-k 32] [--skip-cli]`.
Topology files are generated into a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from controller.topology import save_topology
from controller.topology.generators import fat_tree

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, os, resource, sys, time
def peak_mb():
    # VmHWM starts afresh at exec; ru_maxrss would keep the parent's figure from the fork
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from controller.routing import compute_routes
from controller.topology import load_topology
base = peak_mb()
t0, c0 = time.perf_counter(), time.process_time()
topo = load_topology(sys.argv[1])
t1, c1 = time.perf_counter(), time.process_time()
routes = compute_routes(topo)
t2, c2 = time.perf_counter(), time.process_time()
s = routes.summary()
print(json.dumps({
    "switches": s.switches, "hosts": len(topo.hosts), "classes": s.destination_classes,
    "groups": s.groups, "entries": s.entries, "load": t1 - t0, "routes": t2 - t1,
    "load_cpu": c1 - c0, "routes_cpu": c2 - c1,
    "rss_mb": peak_mb(),
    "base_mb": base,
}))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def measure(path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True, text=True, timeout=1800, env=_env(), check=False,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"measuring {path.name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def cli_wall(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `sprayfabric` process."""
    cmd = [sys.executable, "-c",
           "import sys; from sprayfabric.cli import main; sys.exit(main(sys.argv[1:]))", *args]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode:
        raise SystemExit(f"sprayfabric {' '.join(args)} failed: {done.stderr.strip()}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,16,32,64", help="fat-tree k values")
    ap.add_argument("--planes-k", type=int, default=32, help="k of the 4-plane fat-tree (0: skip)")
    ap.add_argument("--skip-cli", action="store_true")
    args = ap.parse_args()
    sizes = [int(k) for k in args.sizes.split(",") if k]
    fabrics = [(f"fat-tree k={k}", k, 1) for k in sizes]
    if args.planes_k:
        fabrics.append((f"fat-tree k={args.planes_k} x 4 planes", args.planes_k, 4))
    print("route computation, one process per fabric, single-threaded")
    print(
        f"{'fabric':<28} {'switches':>8} {'host NICs':>9} {'classes':>7} {'groups':>8} "
        f"{'entries':>10} {'load s (cpu)':>13} {'routes s (cpu)':>15} {'peak RSS MB':>11}"
    )
    with tempfile.TemporaryDirectory(prefix="sfroutes-") as tmp:
        files: dict[tuple[int, int], Path] = {}
        base = 0.0
        for label, k, planes in fabrics:
            path = Path(tmp) / f"fat-tree-k{k}-p{planes}.yaml"
            save_topology(fat_tree(k, planes=planes), path)
            files[(k, planes)] = path
            r = measure(path)
            base = r["base_mb"]
            print(
                f"{label:<28} {r['switches']:>8} {r['hosts']:>9} {r['classes']:>7} "
                f"{r['groups']:>8} {r['entries']:>10} "
                f"{r['load']:>6.2f} ({r['load_cpu']:>4.2f}) {r['routes']:>7.2f} ({r['routes_cpu']:>5.2f}) "
                f"{r['rss_mb']:>11.0f}",
                flush=True,
            )
        print(f"(peak RSS after importing numpy, scipy and the controller: {base:.0f} MB)")
        if args.skip_cli:
            return
        print()
        print("sprayfabric topo routes, from process start to exit")
        json_k = 32 if 32 in sizes else max(sizes)
        for k, extra in ((max(sizes), []), (json_k, ["--json"])):
            path = files[(k, 1)]
            out = Path(tmp) / f"routes-k{k}.out"
            wall, cpu = cli_wall(["topo", "routes", str(path), *extra, "-o", str(out)])
            size = out.stat().st_size / 1e6
            print(
                f"  routes fat-tree-k{k}.yaml {' '.join(extra):<7} {wall:6.2f} s wall, "
                f"{cpu:6.2f} s CPU  ({size:.1f} MB written)"
            )
    print(
        f"(this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)"
    )


if __name__ == "__main__":
    main()
