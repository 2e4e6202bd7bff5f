"""The player under the 50-move rule: at a root the tables cover, the DTZ50 tables decide which
moves keep the win with the count as it stands, and the quickest mate is taken among those.

The positions are KQvKN and KQvKR wins where the move the rule-free tables choose (the quickest
mate) lets the count reach 100 before the next capture, pawn move or mate, while another move
keeps the win.
"""
from __future__ import annotations

import json
import shutil

import pytest

import games
from databases.location import DTZ50
from retrograde.build import build_tables
from solver.cli import main
from solver.search.table_leaves import EndgameTables, rule50_result

CHESS = games.get("chess")
# (FEN with the count near 100, the DTM-first move that lets the rule draw)
ON_THE_EDGE = [
    ("8/8/8/3n3k/8/3K4/1Q6/8 w - - 97 80", "d3e4"),  # b2e5 / b2b5 keep it: mate in 14 too
    ("8/6Q1/8/7k/8/8/n7/3K4 w - - 97 70", "d1d2"),
    ("3Q4/8/8/8/8/6r1/1K5k/8 w - - 61 70", "d8h4"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("rule50db")
    build_tables("chess", ["KQvKN", "KQvKR"], root, show_progress=False)
    return root


@pytest.fixture(scope="module")
def db_without_dtz50(db, tmp_path_factory):
    root = tmp_path_factory.mktemp("dtmonly")
    shutil.copytree(db / "chess", root / "chess", ignore=shutil.ignore_patterns(DTZ50))
    return root


def result_under_rule(tables: EndgameTables, position, move: int) -> int:
    child = CHESS.play(position, move)
    return rule50_result(tables.dtz50_code(child), int(CHESS.player.reversible_plies(child)),
                         CHESS.fifty_move_plies)


@pytest.mark.parametrize("fen, dtm_first", ON_THE_EDGE)
def test_root_keeps_the_win_the_rule_allows(db, db_without_dtz50, fen, dtm_first):
    position = CHESS.parse_position(fen)
    with_rule = EndgameTables(CHESS, db, cache_megabytes=8)
    rule_free = EndgameTables(CHESS, db_without_dtz50, cache_megabytes=8)
    try:
        chosen = with_rule.root_choice(position)
        assert result_under_rule(with_rule, position, chosen.move) == 1
        # without DTZ50 the tables' quickest mate is taken, and the rule draws it
        assert CHESS.format_move(position, rule_free.root_choice(position).move) == dtm_first
        assert result_under_rule(with_rule, position, CHESS.parse_move(position, dtm_first)) == 0
    finally:
        with_rule.close()
        rule_free.close()


@pytest.mark.parametrize("fen, dtm_first", ON_THE_EDGE)
def test_converts_against_the_longest_defence(db, fen, dtm_first):
    """The engine's root moves against a defender that puts the next zeroing move as far off as
    it can: a capture or mate comes before the count passes 100."""
    tables = EndgameTables(CHESS, db, cache_megabytes=8)
    position = CHESS.parse_position(fen)
    clock = CHESS.player.reversible_plies
    try:
        for _ in range(20):
            position = CHESS.play(position, tables.root_choice(position).move)
            if clock(position) == 0 or not CHESS.legal_moves(position):
                break
            assert clock(position) < CHESS.fifty_move_plies
            replies = CHESS.legal_moves(position)
            position = max((CHESS.play(position, reply) for reply in replies),
                           key=lambda child: tables.database.probe_dtz(child))
            assert clock(position) <= CHESS.fifty_move_plies
            if clock(position) == 0:
                break
        assert clock(position) == 0 or not CHESS.legal_moves(position)
    finally:
        tables.close()


@pytest.mark.parametrize("fen, dtm_first", ON_THE_EDGE)
def test_search_command_plays_a_move_that_keeps_the_win(db, capsys, fen, dtm_first):
    assert main(["search", "chess", fen, "--db", str(db), "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["best"]
    tables = EndgameTables(CHESS, db, cache_megabytes=8)
    try:
        position = CHESS.parse_position(fen)
        assert result_under_rule(tables, position, CHESS.parse_move(position, best)) == 1
    finally:
        tables.close()
