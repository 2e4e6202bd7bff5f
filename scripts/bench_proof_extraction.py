"""What `--proof` costs: each position proven without it and with it, the ratio of the times.

Each position is proven twice with an empty transposition table of the same size, once as
`solver prove` does without `--proof` (the search alone), once as it does with it (the search,
the proof extracted and written to a file); the ratio is the second time over the first. The
table is allocated once and emptied before each search, untimed: the first touch of a newly
allocated table's pages costs the kernel's zeroing of them (2 MiB huge pages here, at times with
compaction: up to tens of milliseconds, at random), which would swamp the small searches. Each
proof goes to a new file, as when a user names one: replacing an existing file costs this VM's
ext4 about 0.2-0.4 ms more (the rename over it starts the new file's writeback, and freeing the
old blocks is a discard), a fixed cost that would dominate searches of about a millisecond.
Every proof written is then re-read and checked by the independent checker
(`proofsearch.checker`, as `solver check-proof`; not timed) and deleted.

    SOLVER_ORACLE_DATA=../shared/data python scripts/bench_proof_extraction.py --db DIR
        [--long 6] [--long-min 10] [--long-max 40] [--connect4 20] [--table-mb 256] [--seed 1]

Positions:
- chess, the mate in 20 of issue 13 (`--max-depth 39`);
- chess, ``--long`` positions each of KQvK, KRvK and KQvKR whose exact distance to mate, by our
  tables in ``--db``, is ``--long-min`` to ``--long-max`` moves (searched without tables, with
  the depth bound 2N-1 plies: the proof is a mate within N moves);
- Connect Four, the first ``--connect4`` positions of Pons' sets Test_L2_R2 and Test_L1_R1 (the
  proof of their value: `win` proven, else `draw` proven or disproven).
The bar (issue 13): with the proof, at most twice the time of the search alone.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from bench_mates import long_mates
from bench_prove import read_pons_set

import games
from proofsearch.checker import check_file
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof, write_proof
from proofsearch.table import TranspositionTable
from common import oracle_data

ISSUE_MATE = ("issue 13 mate in 20", "8/8/2k5/8/3p4/Qp1p4/pp1p4/rrbK4 w - - 0 1", 20)
CONNECT4_SETS = ("Test_L2_R2", "Test_L1_R1")


_TABLES: dict[float, TranspositionTable] = {}


def empty_table(megabytes: float) -> TranspositionTable:
    """The table of this size, emptied (allocated on first use; see the module docstring)."""
    table = _TABLES.get(megabytes)
    if table is None:
        table = _TABLES[megabytes] = TranspositionTable.from_megabytes(megabytes)
    table.clear()
    return table


def timed_proofs(game, position, goal: str, max_depth: int | None, megabytes: float,
                 proof_path: str, max_nodes: int | None = None) -> dict:
    """Search alone, then search + extraction + writing, each with an empty table (a search
    stopped by ``max_nodes`` is reported as unknown and written no proof)."""
    search = DfpnSearch(game, empty_table(megabytes))
    started = time.perf_counter()
    alone = search.prove(position, goal, max_depth=max_depth, max_nodes=max_nodes)
    search_seconds = time.perf_counter() - started

    search = DfpnSearch(game, empty_table(megabytes))
    started = time.perf_counter()
    found = search.prove(position, goal, max_depth=max_depth, max_nodes=max_nodes)
    size = None
    if found.result in ("proven", "disproven"):
        document = extract_proof(search, position, goal, found.result, max_depth)
        write_proof(document, proof_path)
        size = document["size"]
    with_proof_seconds = time.perf_counter() - started
    verdict = check_file(game, proof_path) if size is not None else None
    if os.path.exists(proof_path):
        os.unlink(proof_path)  # the next proof is written to a new file (module docstring)
    return {"result": alone.result, "nodes": alone.nodes, "search": search_seconds,
            "with_proof": with_proof_seconds, "size": size,
            "valid": verdict is not None and verdict.valid and verdict.nodes == size}


def connect4_goal(game, position, megabytes: float) -> str:
    """The goal whose proof or disproof gives the value: `win` if proven, else `draw`."""
    found = DfpnSearch(game, empty_table(megabytes)).prove(position, "win")
    return "win" if found.result == "proven" else "draw"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="directory with the 3-4-piece chess tables")
    parser.add_argument("--long", type=int, default=6, help="long mates per ending (default 6)")
    parser.add_argument("--long-min", type=int, default=10)
    parser.add_argument("--long-max", type=int, default=40)
    parser.add_argument("--connect4", type=int, default=20, help="positions per Pons set")
    parser.add_argument("--table-mb", type=float, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-nodes", type=int, default=20_000_000,
                        help="node limit per search (default 20M): unsolved positions are listed "
                             "but left out of the ratios")
    args = parser.parse_args()
    data = oracle_data()
    if not (data / "connect4").is_dir():
        print(f"bench_proof_extraction: no Connect Four sets under {data} (set SOLVER_ORACLE_DATA)",
              file=sys.stderr)
        return 2

    chess = games.get("chess")
    connect4 = games.get("connect4")
    cases = []  # (group, game, position, goal, max_depth, label)
    for group, fen, moves in [ISSUE_MATE] + long_mates(args.db, args.long, args.long_min,
                                                       args.long_max, args.seed):
        cases.append((group, chess, chess.parse_position(fen), "win", 2 * moves - 1,
                      f"{fen} (mate in {moves})"))
    for name in CONNECT4_SETS:
        for moves, _ in read_pons_set(data / "connect4" / name, args.connect4):
            position = connect4.parse_position(moves)
            cases.append((f"connect4 {name}", connect4, position,
                          connect4_goal(connect4, position, args.table_mb), None, moves))

    # warm-up: every kernel loaded (numba cache) before anything is timed
    with tempfile.TemporaryDirectory() as scratch:
        proof_path = os.path.join(scratch, "proof.json")
        timed_proofs(chess, chess.parse_position(ISSUE_MATE[1]), "win", 3, 16, proof_path)
        timed_proofs(connect4, connect4.parse_position("4453"), "win", 7, 16, proof_path)

        print(f"{'group':24} {'result':10} {'nodes':>10} {'search s':>9} {'+proof s':>9} "
              f"{'ratio':>6} {'size':>8} checked  position")
        groups: dict[str, list[dict]] = {}
        for group, game, position, goal, max_depth, label in cases:
            row = timed_proofs(game, position, goal, max_depth, args.table_mb, proof_path,
                               args.max_nodes)
            if row["size"] is not None:
                groups.setdefault(group, []).append(row)
            ratio = row["with_proof"] / max(row["search"], 1e-9)
            print(f"{group:24} {goal + ' ' + row['result']:10} {row['nodes']:>10,} "
                  f"{row['search']:>9.3f} {row['with_proof']:>9.3f} {ratio:>6.2f} "
                  f"{row['size'] if row['size'] is not None else '-':>8} "
                  f"{('valid' if row['valid'] else 'INVALID') if row['size'] is not None else 'unsolved':8}  {label}", flush=True)

    print("\nper group: total time with the proof / total time of the search alone "
          "(the bar: at most 2)")
    for group, rows in groups.items():
        search = sum(row["search"] for row in rows)
        with_proof = sum(row["with_proof"] for row in rows)
        worst = max(row["with_proof"] / max(row["search"], 1e-9) for row in rows)
        print(f"{group:24} n={len(rows):3} search {search:8.2f} s  with proof {with_proof:8.2f} s  "
              f"ratio {with_proof / search:5.2f}  worst {worst:5.2f}  median size "
              f"{statistics.median(row['size'] or 0 for row in rows):,.0f}  "
              f"invalid {sum(not row['valid'] for row in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
