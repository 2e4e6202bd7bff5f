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

With ``--dtz50`` the DTZ50 tables are checked instead (``solver build`` writes them beside the
others): every position's five-valued WDL must equal Syzygy's, and its DTZ (python-chess's
convention) Syzygy's or one ply further from 0, the latitude python-chess documents for
Syzygy's DTZ (state in ``docs/results/dtz50-check.jsonl`` by default).

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


import fathom_probe
from databases import format as F
from databases.location import DTM, DTZ50, table_path
from databases.reader import TableFile
from games.chess import endgames as E
from games.value_codes import is_loss, is_win
from results_log import append_row, recorded
from common import oracle_data

CHUNK_PAGES = 16  # 262,144 indices per task
EXAMPLES = 5  # disagreeing positions kept per chunk
PIECE_TYPES = [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING]


@nb.njit(types.void(types.int64, types.Array(types.int64, 1, "C"),
                    types.Array(types.uint16, 1, "C"), types.Array(types.int64, 2, "C"),
                    types.Array(types.int64, 1, "C")), cache=True)
def unrank_indices(table, indices, codes, squares, sides):
    """Squares (spec order) and side to move of every index ``indices[k]`` whose code
    ``codes[k]`` is valid; side -1 where the index holds no position (or its code is
    INVALID)."""
    scratch = np.empty(E.MAX_PIECES, dtype=np.int64)
    for k in range(codes.shape[0]):
        sides[k] = -1
        if codes[k] == F.INVALID:
            continue
        stm = E.storage_unrank(table, indices[k], scratch)
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


def rule50_arrays(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(WDL, DTZ) of DTZ50 codes as python-chess reports Syzygy's (games.value_codes' wdl50
    and python_chess_dtz, on arrays)."""
    codes = codes.astype(np.int64)
    decided = codes >= 2
    distance = np.where(decided, (codes - 2) >> 1, 0)
    sign = np.where(decided, np.where(codes & 1 == 1, 1, -1), 0)
    wdl = sign * np.where(distance <= 100, 2, 1)
    dtz = np.where(sign > 0, distance, -np.maximum(distance, 1)) * (sign != 0)
    return wdl, dtz


def dtz_agrees(ours_wdl, ours_dtz, wdl, dtz) -> np.ndarray:
    """Where our (WDL, DTZ) agree with Syzygy's: the same WDL, and our DTZ equal to theirs or
    one ply further from 0."""
    close = (ours_dtz == dtz) | ((dtz > 0) & (ours_dtz == dtz + 1)) \
        | ((dtz < 0) & (ours_dtz == dtz - 1))
    return (ours_wdl == wdl) & close


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


def chunk_codes(root: str, table: str, chunk: int, metric: str, sample: int,
                cursed: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(indices, codes) of one task: the pages ``[chunk * CHUNK_PAGES, +CHUNK_PAGES)``, or
    with ``sample`` that many indices drawn at random (seeded by ``chunk``) among the table's
    valid ones; with ``cursed`` (DTZ50 only), every cursed win and blessed loss instead."""
    handle = TableFile(table_path(root, "chess", table, metric), "chess", table)
    try:
        if cursed:
            every = handle.read_all()
            indices = np.flatnonzero(np.abs(rule50_arrays(every)[0]) == 1)
            return indices.astype(np.int64), np.ascontiguousarray(every[indices], np.uint16)
        if sample:
            every = handle.read_all()
            rng = np.random.default_rng(chunk)
            indices = np.zeros(0, dtype=np.int64)
            for _ in range(64):  # draws until enough valid ones (most tables: a few)
                drawn = rng.integers(0, every.size, 2 * sample)
                indices = np.union1d(indices, drawn[every[drawn] != F.INVALID])
                if indices.size >= sample:
                    break
            indices = rng.permutation(indices)[:sample]
            indices.sort()
            return indices.astype(np.int64), np.ascontiguousarray(every[indices], np.uint16)
        first_page = chunk * CHUNK_PAGES
        count = min(CHUNK_PAGES, handle.pages - first_page)
        codes = np.ascontiguousarray(handle.read_pages(first_page, count), dtype=np.uint16)
    finally:
        handle.close()
    first = first_page * F.PAGE_ENTRIES
    return np.arange(first, first + codes.size, dtype=np.int64), codes


def check_chunk(root: str, table: str, chunk: int, cross_check: int = 0,
                metric: str = DTM, sample: int = 0, cursed: bool = False) -> dict:
    """Compare the indices of pages ``[chunk * CHUNK_PAGES, +CHUNK_PAGES)`` of ``table`` (its
    rule-free table, or its DTZ50 table), or ``sample`` random ones (:func:`chunk_codes`):
    with python-chess, or with Fathom when the worker has it (then every ``cross_check``-th
    position with python-chess as well)."""
    indices, codes = chunk_codes(root, table, chunk, metric, sample, cursed)
    spec = E.spec_of(table)
    table_id = E.TABLE_IDS[table]
    squares = np.zeros((codes.size, len(spec)), dtype=np.int64)
    sides = np.zeros(codes.size, dtype=np.int64)
    unrank_indices(table_id, indices, codes, squares, sides)
    pieces = [chess.Piece(PIECE_TYPES[code % 6], code // 6 == 0) for code in spec]
    row = {"table": table, "chunk": chunk, "checked": 0, "wrong": 0, "examples": []}
    if sample:
        row["sample"] = sample
    if cursed:
        row["only"] = "cursed"

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
        disagree(f"index {indices[k]}: valid code {codes[k]} but no position")
    valid = np.flatnonzero(sides >= 0)
    if metric == DTZ50:
        row["metric"] = DTZ50
        return check_dtz50(row, codes[valid], squares[valid], sides[valid], pieces, board_at,
                           valid, cross_check, disagree)
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


def check_dtz50(row: dict, codes, squares, sides, pieces, board_at, valid, cross_check,
                disagree) -> dict:
    """The DTZ50 half of :func:`check_chunk` (the positions already unranked)."""
    ours_wdl, ours_dtz = rule50_arrays(codes)
    row["checked"] = int(codes.size)
    if _fathom is None:
        for i in range(codes.size):
            board = board_at(valid[i])
            wdl, dtz = _tablebase.probe_wdl(board), _tablebase.probe_dtz(board)
            if not dtz_agrees(ours_wdl[i], ours_dtz[i], wdl, dtz):
                disagree(f"{board.fen()}: ours {ours_wdl[i]}/{ours_dtz[i]}, Syzygy {wdl}/{dtz}")
        return row
    wdl, dtz = _fathom.probe_dtz(fathom_probe.bitboards(
        squares, [piece.piece_type for piece in pieces], [piece.color for piece in pieces]),
        sides == 0)
    wrong = (wdl == fathom_probe.FAILED) | ~dtz_agrees(ours_wdl, ours_dtz, wdl, dtz)
    for i in np.flatnonzero(wrong):
        board = board_at(valid[i])
        disagree(f"{board.fen()}: ours {ours_wdl[i]}/{ours_dtz[i]}, Syzygy (Fathom) "
                 f"{wdl[i]}/{dtz[i]}")
    row |= {"prober": "fathom", "cross_checked": 0, "probers_disagree": 0,
            "exact": int(np.count_nonzero(~wrong & (ours_dtz == dtz))),
            "cursed": int(np.count_nonzero(np.abs(ours_wdl) == 1))}
    for i in range(0, codes.size, cross_check or codes.size + 1):
        board = board_at(valid[i])
        value = (_tablebase.probe_wdl(board), _tablebase.probe_dtz(board))
        row["cross_checked"] += 1
        if value != (wdl[i], dtz[i]):
            row["probers_disagree"] += 1
            disagree(f"{board.fen()}: Fathom {wdl[i]}/{dtz[i]}, python-chess {value}")
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
        if any("exact" in row for row in rows):
            print(f"  DTZ equal to Syzygy's: {sum(row.get('exact', 0) for row in rows):,}, one "
                  "ply longer (Syzygy's rounding): the rest; cursed wins and blessed losses: "
                  f"{sum(row.get('cursed', 0) for row in rows):,}")
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
    oracle = str(oracle_data())
    parser.add_argument("--syzygy", default=os.path.join(oracle, "chess", "syzygy"),
                        help="Syzygy 3-4 piece directory (default: $SOLVER_ORACLE_DATA/chess/syzygy)")
    parser.add_argument("--syzygy5", default=os.path.join(oracle, "chess", "syzygy5"),
                        help="Syzygy five-piece directory")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--state", help="finished chunks, one JSON line each (the run "
                        "resumes from it; default docs/results/syzygy-check.jsonl, with "
                        "--dtz50 dtz50-check.jsonl, with --random ...-random.jsonl)")
    parser.add_argument("--dtz50", action="store_true",
                        help="check the DTZ50 tables (WDL with the 50-move rule, and DTZ)")
    parser.add_argument("--fathom", metavar="CHECKOUT",
                        help="probe with Fathom built from this checkout of its sources")
    parser.add_argument("--cross-check", type=int, default=1000, metavar="N",
                        help="with --fathom, probe every N-th position with python-chess too")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="check N positions of each table drawn at random among its valid "
                        "indices (one task a table) instead of every position")
    parser.add_argument("--cursed", action="store_true",
                        help="with --dtz50: check every cursed win and blessed loss of each "
                        "table (one task a table) instead of every position")
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
    metric = DTZ50 if args.dtz50 else DTM
    chunks = {}
    for table in args.tables:
        path = table_path(args.db, "chess", table, metric)
        if not path.is_file():
            parser.error(f"{path} does not exist (solver build chess {table} --db {args.db})")
        pages = -(-2 * E.per_side_size(table) // F.PAGE_ENTRIES)
        chunks[table] = 1 if args.random or args.cursed else -(-pages // CHUNK_PAGES)
    if args.cursed and not args.dtz50:
        parser.error("--cursed needs --dtz50")
    kind = ("dtz50" if args.dtz50 else "syzygy") + ("-random" if args.random else "") \
        + ("-cursed" if args.cursed else "")
    state = Path(args.state or f"docs/results/{kind}-check.jsonl")
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
    print(f"{len(todo)} chunks of {args.random or CHUNK_PAGES * F.PAGE_ENTRIES:,} "
          f"{'random ' if args.random else ''}indices to check "
          f"({sum(chunks.values()) - len(todo)} done before), {args.workers} workers",
          flush=True)
    started, checked = time.perf_counter(), 0
    with ProcessPoolExecutor(args.workers, initializer=_open_tablebase,
                             initargs=(directories, library)) as pool:
        futures = [pool.submit(check_chunk, args.db, table, chunk, args.cross_check, metric,
                               args.random, args.cursed) for table, chunk in todo]
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
