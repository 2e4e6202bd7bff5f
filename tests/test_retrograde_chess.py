"""Chess tables against outside oracles: Syzygy WDL and Gaviota DTM (through python-chess,
tables from $SOLVER_ORACLE_DATA/chess/syzygy and chess/gaviota), and the verifier.

The normal run builds every 3-4-piece table into a temporary directory (tests/conftest.py's
``full_db``) and checks 20,000 random legal positions per ending against Syzygy and 5,000 per
3-piece ending against Gaviota, and every position of KQvKR against Syzygy (given its 3-piece
children, which the slow run checks position by position). The slow run (``pytest -m slow``) builds
every 3-4 piece table and checks 20,000 random positions of every ending (with en-passant
positions where legal), every position of the five 3-piece endings against Gaviota, and every
position of every 3-4 piece table against Syzygy: the values the files store read in bulk
(tests/syzygy_raw.py: python-chess alone probes about 5,000 positions a second, a day for
these 136 M), a thousand positions per table through python-chess as well.
``SOLVER_EXHAUSTIVE_TABLES`` (comma-separated) narrows that last check to the tables named.
"""
from __future__ import annotations

import os
import random
import zlib

import chess
import chess.gaviota
import chess.syzygy
import numpy as np
import pytest

from databases import format as F
from databases import open_database
from games.chess import endgames as E
from games.kernels import WIN
from games.value_codes import decode, encode
from retrograde.tables import read_codes
from retrograde.verify import verify_table
from games.chess.random_positions import random_board

NORMAL_TABLES = ["KvK", "KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR", "KBBvK"]  # KBBvK: like pieces last
GAVIOTA_TABLES = ["KQvK", "KRvK", "KPvK", "KBvK", "KNvK"]
RANDOM_POSITIONS = 20_000


@pytest.fixture(scope="session")
def normal_db(full_db):
    return full_db


def syzygy_wdl(tablebase, board: chess.Board) -> int:
    value = tablebase.probe_wdl(board)
    return (value > 0) - (value < 0)  # cursed wins and blessed losses are wins and losses here


def check_random_positions(db, syzygy, table: str, count: int, seed: int) -> None:
    rng = random.Random(seed)
    game = db.game
    wrong, en_passant = [], 0
    for _ in range(count):
        board = random_board(table, rng)
        en_passant += board.ep_square is not None
        ours = db.probe_wdl(game.parse_position(board.fen()))
        if ours != syzygy_wdl(syzygy, board):
            wrong.append(board.fen())
    assert not wrong, f"{table}: {len(wrong)} of {count} differ from Syzygy, e.g. {wrong[:3]}"
    if "P" in table.split("v")[0] and "P" in table.split("v")[1]:
        assert en_passant > 0


@pytest.mark.parametrize("table", GAVIOTA_TABLES)
def test_dtm_matches_gaviota_on_random_positions(normal_db, gaviota, table):
    rng = random.Random(11)
    with open_database(normal_db, "chess") as db:
        for _ in range(5000):
            board = random_board(table, rng)
            assert db.probe_dtm(db.game.parse_position(board.fen())) == gaviota.probe_dtm(board), \
                board.fen()


def test_kvk_is_drawn_everywhere(normal_db):
    codes = read_codes(normal_db, "chess", "KvK")
    # every entry: the index holds only king pairs that can stand (no INVALID entry is left)
    assert set(np.unique(codes)) == {F.CODE_DRAW} and codes.size == 2 * 462


@pytest.mark.parametrize("table", NORMAL_TABLES)
def test_verify_finds_no_errors(normal_db, table):
    assert verify_table("chess", table, normal_db)["errors"] == 0


def altered_kqvkr(source, root, alter) -> None:
    """KQvKR of ``source`` with its codes changed in place by ``alter``, written to ``root``
    beside copies of its child tables."""
    import shutil

    from databases.location import table_path
    from databases.writer import write_table

    for table in E.dependencies_of("KQvKR"):
        target = table_path(root, "chess", table)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(table_path(source, "chess", table), target)
    codes = read_codes(source, "chess", "KQvKR")
    alter(codes)
    write_table(table_path(root, "chess", "KQvKR"), codes, game="chess", table="KQvKR",
                index_scheme=E.INDEX_SCHEME, index_version=E.INDEX_VERSION, sides=2,
                generator="test", generator_version="0", settings={}, build_seconds=0)


def test_verify_catches_wrong_entries_in_a_chess_table(normal_db, tmp_path):
    # The chess family ranks a position's children in one batch (quiet moves by arithmetic):
    # wrong codes must still be found, each at its own entry at least.
    def slower_mates(codes):  # each of five wins now claims a mate one move slower
        wins = [i for i in range(0, codes.size, 99_991) if decode(codes[i])[0] == WIN][:5]
        for i in wins:
            codes[i] = encode(WIN, decode(codes[i])[1] + 2)
        assert len(wins) == 5

    altered_kqvkr(normal_db, tmp_path, slower_mates)
    assert verify_table("chess", "KQvKR", tmp_path)["errors"] >= 5


def test_probe_answers_the_issue_example(normal_db):
    with open_database(normal_db, "chess") as db:
        position = db.game.parse_position("8/8/3k4/8/8/8/8/K1Q5 w - - 0 1")
        result = db.probe(position)
        assert result.value == "win" and result.dtm > 0
        child = db.game.play(position, db.best_move(position))
        assert db.probe_dtm(child) == -(result.dtm - 1)


@pytest.mark.parametrize("table", E.tables_up_to(4)[1:])
def test_every_ending_wdl_matches_syzygy(full_db, syzygy, table):
    # 20,000 random legal positions per ending, both sides to move, en passant where legal
    with open_database(full_db, "chess") as db:
        check_random_positions(db, syzygy, table, RANDOM_POSITIONS, seed=zlib.crc32(table.encode()))


# --- slow: every table, every position ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("table", E.tables_up_to(4))
def test_every_table_verifies(full_db, table):
    assert verify_table("chess", table, full_db)["errors"] == 0


def every_position(root, table: str, indices=None):
    """(index, board, our code) for every valid entry of a table, or for the entries
    ``indices``. The board is set up square by square from the decoded index (a FEN round
    trip would take most of the time)."""
    from databases.families import get_family

    family = get_family("chess")
    codes = read_codes(root, "chess", table)
    pos = family.game.new_position()
    table_id = family.table_id(table)
    pieces = [chess.Piece(code % 6 + 1, code < 6) for code in E.spec_of(table)]  # PNBRQK order
    squares = np.empty(E.MAX_PIECES, dtype=np.int64)
    for index in np.flatnonzero(codes != F.INVALID) if indices is None else indices:
        assert family.unrank(table_id, int(index), pos)
        stm = E.storage_unrank(table_id, int(index), squares)
        board = chess.Board(None)
        for piece, square in zip(pieces, squares):
            board.set_piece_at(int(square), piece)
        board.turn = stm == 0
        yield int(index), board, int(codes[index])


@pytest.mark.slow
@pytest.mark.parametrize("table", GAVIOTA_TABLES)
def test_every_position_dtm_matches_gaviota(full_db, gaviota, table):
    for _, board, code in every_position(full_db, table):
        assert F.signed_dtm(code) == gaviota.probe_dtm(board), board.fen()


def _exhaustive_tables() -> list[str]:
    """Every table, or those named in $SOLVER_EXHAUSTIVE_TABLES (comma-separated: a table is
    then checked against Syzygy given its child tables, which only the whole run checks)."""
    named = os.environ.get("SOLVER_EXHAUSTIVE_TABLES")
    return named.split(",") if named else E.tables_up_to(4)


def check_every_position(root, syzygy, syzygy_dir, table: str, cross_checked: int) -> None:
    """Every position's WDL equals what Syzygy's prober answers: the better of the value the
    file stores (read in bulk by tests/syzygy_raw.py) and the captures, valued by our child
    tables (each checked the same way). ``cross_checked`` positions are probed by
    python-chess's ``probe_wdl`` as well, which holds the bulk reader to the prober. (A legal
    position our table calls INVALID is not compared here: `verify` reports it.)"""
    from tests.syzygy_raw import NO_VALUE, prober_values

    ours, theirs = prober_values(syzygy_dir, root, table)
    valid = np.flatnonzero(ours != NO_VALUE)
    assert valid.size > 0, f"{table}: no position"
    wrong = np.flatnonzero(ours != theirs)
    examples = [(board.fen(), int(ours[index]), syzygy_wdl(syzygy, board))
                for index, board, _ in every_position(root, table, wrong[:3])]
    assert wrong.size == 0, (f"{table}: {wrong.size} of {valid.size} differ from Syzygy; (FEN, "
                             f"ours, python-chess's probe_wdl): {examples}")
    sample = np.random.default_rng(zlib.crc32(table.encode())).choice(
        valid, min(cross_checked, valid.size), replace=False)
    for index, board, _ in every_position(root, table, np.sort(sample)):
        assert syzygy_wdl(syzygy, board) == theirs[index], board.fen()


def test_every_position_of_kqvkr_matches_syzygy(normal_db, syzygy, oracle_data):
    check_every_position(normal_db, syzygy, oracle_data("chess/syzygy"), "KQvKR", 300)


def test_every_position_check_finds_wrong_values(normal_db, syzygy, oracle_data, tmp_path):
    def drawn_wins(codes):  # three wins now claim a draw
        codes[[i for i in range(0, codes.size, 99_991) if decode(codes[i])[0] == WIN][:3]] = \
            F.CODE_DRAW

    altered_kqvkr(normal_db, tmp_path, drawn_wins)
    with pytest.raises(AssertionError, match="KQvKR: 3 of"):
        check_every_position(tmp_path, syzygy, oracle_data("chess/syzygy"), "KQvKR", 0)


@pytest.mark.slow
@pytest.mark.parametrize("table", _exhaustive_tables())
def test_every_position_wdl_matches_syzygy(full_db, syzygy, oracle_data, table):
    check_every_position(full_db, syzygy, oracle_data("chess/syzygy"), table, 1_000)


def test_cli_probe_chess(normal_db, gaviota, capsys):
    import json

    from solver.cli import main

    fen = "8/8/3k4/8/8/8/8/K1Q5 w - - 0 1"
    assert main(["probe", "chess", fen, "--db", str(normal_db), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["value"] == "win" and answer["dtm"] == gaviota.probe_dtm(chess.Board(fen))
    board = chess.Board(fen)
    board.push_uci(answer["best"])
    assert gaviota.probe_dtm(board) == -(answer["dtm"] - 1)
    assert main(["probe", "chess", "r3k3/8/8/8/8/8/8/4K3 w q - 0 1", "--db", str(normal_db)]) == 2
    assert "castling" in capsys.readouterr().err


@pytest.mark.parametrize("table", ["KPvK", "KRvK"])
def test_results_do_not_depend_on_threads(normal_db, table):
    import numba

    from databases.families import get_family
    from retrograde.progress import Silent
    from retrograde.unmove import solve_by_unmoves
    from retrograde.tables import ChildCodes

    family = get_family("chess")
    before = numba.get_num_threads()
    try:
        results = []
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            children = ChildCodes.load(normal_db, family, family.dependencies(table))
            results.append(solve_by_unmoves(family, table, children, Silent()))
    finally:
        numba.set_num_threads(before)
    assert all(np.array_equal(results[0], r) for r in results[1:])
    assert np.array_equal(results[0], read_codes(normal_db, "chess", table))


@pytest.mark.parametrize("table", ["KPvK", "KQvKN", "KPvKP"])
def test_distances_beyond_the_byte_window_give_the_same_tables(normal_db, table, monkeypatch):
    # Five-piece tables have mates longer than one-byte codes hold: the generator then stores
    # what is decided and shifts codes and levels down. A window of 6 plies makes these tables
    # shift every few levels (captures, promotions and en passant included); the result must
    # be the table built without a shift, code for code.
    from databases.families import get_family
    from retrograde import unmove
    from retrograde.progress import Silent
    from retrograde.tables import ChildCodes

    family = get_family("chess")
    children = ChildCodes.load(normal_db, family, family.dependencies(table))
    monkeypatch.setattr(unmove, "WINDOW", 6)
    shifted = unmove.solve_by_unmoves(family, table, children, Silent())
    assert np.array_equal(shifted, read_codes(normal_db, "chess", table))


@pytest.mark.parametrize("table", ["KPvK", "KRvKP", "KQvKR", "KBNvK", "KPvKP"])
def test_child_tables_read_in_groups_give_the_same_tables(normal_db, table, monkeypatch):
    # A five-piece pawn table's promotions lead to four five-piece tables: the generator reads
    # its children in groups within a memory budget and folds the moves into each group in
    # turn. With a budget of one byte every child is a group of its own, and every one but the
    # first comes in parts of a million entries (captures included: the capture tables then
    # come from the first group alone, the rest by folding; with en passant the first group is
    # the tables it leads to, kept for the levels); the result must be the table built with
    # every child at once, code for code.
    from databases.families import get_family
    from retrograde import unmove
    from retrograde.progress import Silent
    from retrograde.tables import ChildLoader

    family = get_family("chess")
    monkeypatch.setattr(unmove, "CHILD_GROUP_BYTES", 1)
    grouped = unmove.solve_by_unmoves(
        family, table, ChildLoader(normal_db, family, family.dependencies(table)), Silent())
    assert np.array_equal(grouped, read_codes(normal_db, "chess", table))
