"""Check every position of chess tables against Syzygy's WDL tables (probed with python-chess),
in index order, on every core, resumable.

    python scripts/check_syzygy_all.py KQRvKR KRPvKR --db DIR [--workers N] [--state FILE]
    python scripts/check_syzygy_all.py KRPvKR --db DIR --fathom FATHOM_CHECKOUT

This is the exhaustive form of the random-position oracle test (tests/test_retrograde_chess5.py):
every index of each table whose stored code is not INVALID is unranked, set up as a
``chess.Board`` and probed with ``probe_wdl`` (cursed wins and blessed losses count as wins and
losses: our tables ignore the fifty-move rule); an index Syzygy answers differently, or one
our unranking rejects though its code is valid, is a disagreement. Positions with an en-passant
right have no index of their own; the random test covers them.

python-chess probes about 10,000 positions a second per process, so a five-piece table takes
hours. With ``--fathom`` (a checkout of https://github.com/jdart1/Fathom, see
``fathom_probe.py``) the positions are probed in bulk by Fathom, hundreds of times faster, and
one position in ``--cross-check`` is probed by python-chess as well: a disagreement between
the two probers is counted apart and fails the run like any other. Work goes in chunks of
pages, one process per worker, and each finished chunk is a JSON line in ``--state`` (default
``docs/results/syzygy-check.jsonl``); a run resumes where the last one stopped (a chunk checked
with either prober counts as done). Exit status 1 when a disagreement was found, 2 for bad
arguments.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import chess
import chess.syzygy
import numba as nb
import numpy as np
from numba import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fathom_probe  # noqa: E402
from databases import format as F  # noqa: E402
from databases.location import table_path  # noqa: E402
from databases.reader import TableFile  # noqa: E402
from games.chess import endgames as E  # noqa: E402
from games.value_codes import is_loss, is_win  # noqa: E402
from results_log import append_row, recorded  # noqa: E402

CHUNK_PAGES = 16  # 262,144 indices per task
EXAMPLES = 5  # disagreeing positions kept per chunk
PIECE_TYPES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING]


@nb.njit(types.void(types.int64, types.int64, types.Array(types.uint16, 1, "C"),
                    types.Array(types.int64, 2, "C"), types.Array(types.int64, 1, "C")),
         cache=True)
def unrank_chunk(table, first, codes, squares, sides):
    """Squares (spec order) and side to move of every index ``first + k`` whose code is valid;
    side -1 where the index holds no position (or its code is INVALID)."""
    scratch = np.empty(E.MAX_PIECES, dtype=np.int64)
    for k in range(codes.shape[0]):
        sides[k] = -1
        if codes[k] == F.INVALID:
            continue
        stm = E.storage_unrank(table, first + k, scratch)
        sides[k] = stm if stm >= 0 else -2  # -2: a valid code on an index we cannot unrank
        for i in range(squares.shape[1]):
            squares[k, i] = scratch[i]


@nb.njit(types.Array(types.int64, 1, "C")(types.Array(types.uint16, 1, "C")), cache=True)
def wdl_of_codes(codes):
    """1, 0 or -1 for the side to move of each stored code (a draw is neither win nor loss)."""
    wdl = np.zeros(codes.shape[0], dtype=np.int64)
    for k in range(codes.shape[0]):
        code = np.int64(codes[k])
        wdl[k] = 1 if is_win(code) else (-1 if is_loss(code) else 0)
    return wdl


_tablebase = None
_fathom = None


def _open_tablebase(directories: list[str], fathom_library: str | None) -> None:
    """Worker initialiser: python-chess's tablebase over ``directories``, and Fathom's if
    its library is given."""
    global _tablebase, _fathom
    _tablebase = chess.syzygy.open_tablebase(directories[0])
    for directory in directories[1:]:
        _tablebase.add_directory(directory)
    if fathom_library:
        _fathom = fathom_probe.Fathom(Path(fathom_library), directories)


def check_chunk(root: str, table: str, chunk: int, cross_check: int = 0) -> dict:
    """Compare the indices of pages ``[chunk * CHUNK_PAGES, +CHUNK_PAGES)`` of ``table``: with
    python-chess, or with Fathom when the worker has it (then every ``cross_check``-th position
    with python-chess as well)."""
    handle = TableFile(table_path(root, "chess", table), "chess", table)
    try:
        first_page = chunk * CHUNK_PAGES
        count = min(CHUNK_PAGES, handle.pages - first_page)
        codes = np.ascontiguousarray(handle.read_pages(first_page, count), dtype=np.uint16)
    finally:
        handle.close()
    spec = E.spec_of(table)
    table_id = E.TABLE_IDS[table]
    first = first_page * F.PAGE_ENTRIES
    squares = np.zeros((codes.size, len(spec)), dtype=np.int64)
    sides = np.zeros(codes.size, dtype=np.int64)
    unrank_chunk(table_id, first, codes, squares, sides)
    pieces = [chess.Piece(PIECE_TYPES[code % 6], code // 6 == 0) for code in spec]
    row = {"table": table, "chunk": chunk, "checked": 0, "wrong": 0, "examples": []}

    def disagree(message: str) -> None:
        row["wrong"] += 1
        if len(row["examples"]) < EXAMPLES:
            row["examples"].append(message)

    def board_at(k: int) -> chess.Board:
        board = chess.Board(None)
        board.set_piece_map({int(square): piece for square, piece in zip(squares[k], pieces)})
        board.turn = bool(sides[k] == 0)
        return board

    for k in np.flatnonzero(sides == -2):
        disagree(f"index {first + k}: valid code {codes[k]} but no position")
    valid = np.flatnonzero(sides >= 0)
    ours = wdl_of_codes(codes[valid])
    row["checked"] = int(valid.size)
    if _fathom is None:
        for k, mine in zip(valid, ours):
            board = board_at(k)
            value = _tablebase.probe_wdl(board)
            if mine != (value > 0) - (value < 0):
                disagree(f"{board.fen()}: ours {mine}, Syzygy {value}")
        return row
    wdl = _fathom.probe_wdl(fathom_probe.bitboards(
        squares[valid], [piece.piece_type for piece in pieces], [piece.color for piece in pieces]),
        sides[valid] == 0)
    for i in np.flatnonzero((wdl == fathom_probe.FAILED) | (np.sign(wdl) != ours)):
        board = board_at(valid[i])
        disagree(f"{board.fen()}: ours {ours[i]}, Syzygy (Fathom) {wdl[i]}")
    row |= {"prober": "fathom", "cross_checked": 0, "probers_disagree": 0}
    for i in range(0, valid.size, cross_check or valid.size + 1):
        board = board_at(valid[i])
        value = _tablebase.probe_wdl(board)
        row["cross_checked"] += 1
        if value != wdl[i]:
            row["probers_disagree"] += 1
            disagree(f"{board.fen()}: Fathom {wdl[i]}, python-chess {value}")
    return row


def finished_chunks(state: Path) -> dict[tuple[str, int], dict]:
    """The chunks recorded in ``state`` so far."""
    return {(row["table"], row["chunk"]): row for row in recorded(state)}


def summary(tables: list[str], done: dict, chunks: dict[str, int]) -> int:
    """Print each table's totals; the number of disagreements."""
    total_wrong = 0
    for table in tables:
        rows = [row for (name, _), row in done.items() if name == table]
        checked = sum(row["checked"] for row in rows)
        wrong = sum(row["wrong"] for row in rows)
        total_wrong += wrong
        by_fathom = [row for row in rows if row.get("prober") == "fathom"]
        print(f"{table}: {len(rows)} of {chunks[table]} chunks, {checked:,} positions checked, "
              f"{wrong:,} disagree with Syzygy")
        if by_fathom:
            print(f"  {sum(row['checked'] for row in by_fathom):,} of them probed by Fathom; "
                  f"{sum(row['cross_checked'] for row in by_fathom):,} of those by python-chess "
                  f"too, {sum(row['probers_disagree'] for row in by_fathom):,} answered "
                  "differently by the two probers")
        for row in rows:
            for example in row["examples"]:
                print(f"  {example}")
    return total_wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="+", metavar="TABLE")
    parser.add_argument("--db", required=True, help="database directory holding the tables")
    oracle = os.environ.get("SOLVER_ORACLE_DATA", "")
    parser.add_argument("--syzygy", default=os.path.join(oracle, "chess", "syzygy"),
                        help="Syzygy 3-4 piece directory (default: $SOLVER_ORACLE_DATA/chess/syzygy)")
    parser.add_argument("--syzygy5", default=os.path.join(oracle, "chess", "syzygy5"),
                        help="Syzygy five-piece directory")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--state", default="docs/results/syzygy-check.jsonl",
                        help="finished chunks, one JSON line each (the run resumes from it)")
    parser.add_argument("--fathom", metavar="CHECKOUT",
                        help="probe with Fathom built from this checkout of its sources")
    parser.add_argument("--cross-check", type=int, default=1000, metavar="N",
                        help="with --fathom, probe every N-th position with python-chess too")
    parser.add_argument("--report", action="store_true", help="summarise --state and stop")
    args = parser.parse_args()
    unknown = [t for t in args.tables if t not in E.TABLE_IDS]
    if unknown:
        parser.error(f"unknown table(s): {' '.join(unknown)}")
    directories = [d for d in (args.syzygy, args.syzygy5) if os.path.isdir(d)]
    if not directories:
        parser.error(f"no Syzygy directory at {args.syzygy}")
    if args.cross_check < 1:
        parser.error("--cross-check must be at least 1")
    chunks = {}
    for table in args.tables:
        path = table_path(args.db, "chess", table)
        if not path.is_file():
            parser.error(f"{path} does not exist (solver build chess {table} --db {args.db})")
        pages = -(-2 * E.per_side_size(table) // F.PAGE_ENTRIES)
        chunks[table] = -(-pages // CHUNK_PAGES)
    state = Path(args.state)
    done = finished_chunks(state)
    if args.report:
        return 1 if summary(args.tables, done, chunks) else 0
    library = None
    if args.fathom:
        try:
            library = str(fathom_probe.build(Path(args.fathom)))
        except (OSError, subprocess.CalledProcessError) as error:
            parser.error(f"cannot build Fathom from {args.fathom}: {error}")
    todo = [(table, chunk) for table in args.tables for chunk in range(chunks[table])
            if (table, chunk) not in done]
    print(f"{len(todo)} chunks of {CHUNK_PAGES * F.PAGE_ENTRIES:,} indices to check "
          f"({sum(chunks.values()) - len(todo)} done before), {args.workers} workers",
          flush=True)
    started, checked = time.perf_counter(), 0
    with ProcessPoolExecutor(args.workers, initializer=_open_tablebase,
                             initargs=(directories, library)) as pool:
        futures = [pool.submit(check_chunk, args.db, table, chunk, args.cross_check)
                   for table, chunk in todo]
        for finished, future in enumerate(as_completed(futures), 1):
            row = future.result()
            append_row(state, row)
            done[(row["table"], row["chunk"])] = row
            checked += row["checked"]
            elapsed = time.perf_counter() - started
            print(f"{finished}/{len(todo)} chunks, {checked:,} positions, "
                  f"{checked / elapsed:,.0f}/s, {row['table']} chunk {row['chunk']}: "
                  f"{row['wrong']} wrong", flush=True)
    return 1 if summary(args.tables, done, chunks) else 0


if __name__ == "__main__":
    sys.exit(main())
