"""What the code generator makes of a set of programs, to compare two versions of it.

For every `.p4` file under the given directories it records the SHA-256 of the generated
Python module, or the compiler's message when the program is refused, and writes them to
`--out` (JSON). With `--against` (a file an earlier version wrote) it prints each program
whose generated code or message changed. A restructuring of the generator should change
none. Then:

    N programs: A compiled, R refused, C crashed; D differ from BEFORE

    python -m bench.codegen_digest DIR [DIR ...] --out AFTER.json [--against BEFORE.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from softswitch.compiler import P4Error, compile_file


def digest(path: Path) -> str:
    """`sha256:<hex>` of the generated module, `refused: <message>` or `crashed: ...`."""
    try:
        source = compile_file(path).source
    except P4Error as e:
        return f"refused: {e}"
    except Exception as e:  # noqa: BLE001 - a crash is what this records
        return f"crashed: {type(e).__name__}: {e}"
    return "sha256:" + hashlib.sha256(source.encode()).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="directories of .p4 programs")
    ap.add_argument("--out", type=Path, required=True, help="where to write the digests")
    ap.add_argument("--against", type=Path, help="digests an earlier version wrote")
    args = ap.parse_args()
    files = sorted(f for d in args.dirs for f in d.rglob("*.p4"))
    if not files:
        ap.error("no .p4 files under " + ", ".join(map(str, args.dirs)))
    out: dict[str, str] = {}
    for i, f in enumerate(files, 1):
        out[str(f)] = digest(f)
        if i % 200 == 0:
            print(f"  {i}/{len(files)}", flush=True)
    args.out.write_text(json.dumps(out, indent=0) + "\n")
    kinds = [v.split(":", 1)[0] for v in out.values()]
    line = (
        f"{len(out)} programs: {kinds.count('sha256')} compiled, {kinds.count('refused')} "
        f"refused, {kinds.count('crashed')} crashed"
    )
    if args.against is not None:
        before = json.loads(args.against.read_text())
        changed = [f for f, v in out.items() if f in before and before[f] != v]
        for f in changed:
            print(f"{f}\n  before: {before[f][:160]}\n  after:  {out[f][:160]}")
        line += f"; {len(changed)} differ from {args.against}"
    print(line)
    return 1 if "crashed" in kinds else 0


if __name__ == "__main__":
    raise SystemExit(main())
