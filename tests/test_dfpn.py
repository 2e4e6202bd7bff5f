"""df-pn against independent oracles: tic-tac-toe minimax, Pascal Pons' Connect Four sets."""
from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

import games
from games import DRAW, LOSS, ONGOING, WIN
from proofsearch.checker import check_document
from proofsearch.dfpn import DfpnSearch, prove
from proofsearch.proof_tree import extract_proof
from proofsearch.table import TranspositionTable
from proofsearch.value import solve_value

VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


@pytest.fixture(scope="module")
def tictactoe():
    return games.get("tictactoe")


@pytest.fixture(scope="module")
def connect4():
    return games.get("connect4")


def _minimax_values(game):
    """Every reachable tic-tac-toe position (as its notation) -> value for the side to move,
    by plain memoised minimax over the Python-side game object."""
    values = {}

    @functools.lru_cache(maxsize=None)
    def value(text):
        position = game.parse_position(text)
        result = game.outcome(position)
        if result != ONGOING:
            return result
        return max(-value(game.format_position(game.play(position, move))) for move in game.legal_moves(position))

    def walk(text):
        if text in values:
            return
        values[text] = value(text)
        position = game.parse_position(text)
        for move in game.legal_moves(position):
            walk(game.format_position(game.play(position, move)))

    walk(game.format_position(game.start_position()))
    return values


def _shortest_wins(game):
    """Every reachable tic-tac-toe position the side to move wins -> the fewest plies to its win
    against best defence (plain minimax on distances)."""
    @functools.lru_cache(maxsize=None)
    def solve(text):  # (value for the side to move, plies to the end with best play)
        position = game.parse_position(text)
        result = game.outcome(position)
        if result != ONGOING:
            return result, 0
        children = [solve(game.format_position(game.play(position, move))) for move in game.legal_moves(position)]
        wins = [plies for value, plies in children if value == LOSS]
        if wins:
            return WIN, min(wins) + 1
        if any(value == DRAW for value, _ in children):
            return DRAW, 0
        return LOSS, max(plies for _, plies in children) + 1

    return {text: solve(text)[1] for text, value in _minimax_values(game).items()
            if value == WIN and game.outcome(game.parse_position(text)) == ONGOING}


def test_proof_length_bounds_the_win_and_a_proof_within_it_exists(tictactoe):
    # Every won tic-tac-toe position: the length df-pn reports for its proof is at least the
    # shortest win (it is the length of a real win: never shorter), and a proof bounded by that
    # length succeeds.
    search = DfpnSearch(tictactoe, TranspositionTable(1 << 12))
    shortest = _shortest_wins(tictactoe)
    assert len(shortest) > 500
    longer = 0
    for text, plies in shortest.items():
        position = tictactoe.parse_position(text)
        found = search.prove(position, "win")
        assert found.result == "proven" and found.length is not None and found.length >= plies, text
        assert found.length % 2 == 1, text  # the winner makes the last move
        assert search.prove(position, "win", max_depth=found.length).result == "proven", text
        assert search.prove(position, "win", max_depth=plies).length <= plies, text
        longer += found.length > plies
    assert longer > 0  # unbounded df-pn does not look for the shortest win: the test sees both


def test_tictactoe_start_is_a_draw(tictactoe):
    start = tictactoe.start_position()
    assert prove(tictactoe, start, "win").result == "disproven"
    assert prove(tictactoe, start, "draw").result == "proven"


def test_tictactoe_every_reachable_position_matches_minimax(tictactoe):
    search = DfpnSearch(tictactoe, TranspositionTable(1 << 12))
    values = _minimax_values(tictactoe)
    assert len(values) == 5478  # reachable positions, the classical count
    for text, expected in values.items():
        value, _ = solve_value(search, tictactoe.parse_position(text))
        assert value == VALUE_NAMES[expected], text


def test_alphabeta_matches_minimax_on_every_tictactoe_position(tictactoe):
    # A hand-off after one df-pn node leaves every position to the alpha-beta goal search; a
    # small table makes it lose entries and solve again. Values must be minimax's, and a win's
    # length that of a real win (odd, never shorter than the shortest).
    search = DfpnSearch(tictactoe, TranspositionTable(1 << 8), handoff=1)
    shortest = _shortest_wins(tictactoe)
    for text, expected in _minimax_values(tictactoe).items():
        position = tictactoe.parse_position(text)
        value, _ = solve_value(search, position)
        assert value == VALUE_NAMES[expected], text
        if text in shortest:
            found = search.prove(position, "win")
            assert found.length % 2 == 1 and found.length >= shortest[text], text
            assert tictactoe.outcome(position) != ONGOING or found.best in tictactoe.legal_moves(position)


def test_alphabeta_proofs_check(tictactoe):
    search = DfpnSearch(tictactoe, TranspositionTable(1 << 10), handoff=1)
    for text in ("x........", "....x....", "xo.......", "x...o...."):
        position = tictactoe.parse_position(text)
        for goal in ("win", "draw"):
            found = search.prove(position, goal)
            document = extract_proof(search, position, goal, found.result)
            verdict = check_document(tictactoe, document)
            assert verdict.valid and verdict.nodes == document["size"], (text, goal, verdict.reason)


def _pons_lines(oracle_data, name, limit=None):
    """(moves, score) from Pascal Pons' Connect Four test sets (blog.gamesolver.org)."""
    lines = oracle_data(f"connect4/{name}").read_text().split("\n")
    pairs = [line.split() for line in lines if line.strip()]
    return [(moves, int(score)) for moves, score in pairs][:limit]


def _sign_name(score):
    return "win" if score > 0 else "loss" if score < 0 else "draw"


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"])
def test_connect4_sample_of_pons_sets(oracle_data, connect4, name):
    search = DfpnSearch(connect4)
    for moves, score in _pons_lines(oracle_data, name, 100 if name != "Test_L1_R1" else 30):
        value, _ = solve_value(search, connect4.parse_position(moves))
        assert value == _sign_name(score), moves


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"])
def test_connect4_full_pons_sets(oracle_data, connect4, name):
    search = DfpnSearch(connect4)
    wrong = []
    for moves, score in _pons_lines(oracle_data, name):
        value, _ = solve_value(search, connect4.parse_position(moves))
        if value != _sign_name(score):
            wrong.append((moves, score, value))
    assert not wrong


@pytest.mark.parametrize("size, name, count", [(16, "Test_L2_R1", 40), (1 << 22, "Test_L2_R1", 40),
                                               (1 << 12, "Test_L2_R2", 12), (1 << 22, "Test_L2_R2", 12)])
def test_same_results_with_tables_of_very_different_sizes(oracle_data, connect4, size, name, count):
    # A 16-entry table forgets almost everything: slow, but never wrong.
    search = DfpnSearch(connect4, TranspositionTable(size))
    for moves, score in _pons_lines(oracle_data, name, count):
        value, _ = solve_value(search, connect4.parse_position(moves), max_nodes=5_000_000)
        assert value == _sign_name(score), (size, moves)


def test_fixed_plies_shortcuts_change_nothing_but_speed(oracle_data, connect4):
    # Connect Four declares that a position fixes its ply: the search then skips the repetition
    # scan and the re-reading of siblings' entries. Neither can matter there, so the generic path
    # must expand exactly the same nodes.
    fast = copy.copy(connect4)
    fast.proof_key = None  # keyed by the plain hash, as the generic path must be
    generic = copy.copy(fast)
    generic.plies_fixed_by_position = False
    fast_search, generic_search = DfpnSearch(fast, handoff=False), DfpnSearch(generic, handoff=False)
    for moves, _ in _pons_lines(oracle_data, "Test_L2_R2", 15):
        position = connect4.parse_position(moves)
        assert solve_value(fast_search, position) == solve_value(generic_search, position), moves


def _mirrored(moves: str) -> str:
    return "".join(str(8 - int(column)) for column in moves)


def test_connect4_mirror_images_share_a_table_key(connect4):
    rng = np.random.default_rng(7)
    for _ in range(300):
        position = connect4.start_position()
        moves = ""
        for _ in range(int(rng.integers(0, 30))):
            legal = connect4.legal_moves(position)
            if not legal:
                break
            move = int(rng.choice(legal))
            position = connect4.play(position, move)
            moves += str(move + 1)
        mirror = connect4.parse_position(_mirrored(moves))
        assert connect4.proof_key(position) == connect4.proof_key(mirror), moves
        if not np.array_equal(position, mirror):
            assert connect4.hash(position) != connect4.hash(mirror)  # the game's own hash tells them apart


def test_mirror_key_keeps_values_and_saves_nodes_below_a_symmetric_position(oracle_data, connect4):
    plain = copy.copy(connect4)
    plain.proof_key = None
    keyed_search, plain_search = DfpnSearch(connect4, handoff=False), DfpnSearch(plain, handoff=False)
    for moves, score in _pons_lines(oracle_data, "Test_L1_R1", 20):
        assert solve_value(keyed_search, connect4.parse_position(moves))[0] == _sign_name(score), moves
    # The centre column filled: below it, a position and its mirror image are both reached.
    symmetric = connect4.parse_position("444444")
    keyed, unkeyed = keyed_search.prove(symmetric, "win"), plain_search.prove(symmetric, "win")
    assert keyed.result == unkeyed.result == "proven"
    assert keyed.nodes < 0.8 * unkeyed.nodes  # 3.7 M against 5.7 M when written


@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R1"])
def test_alphabeta_handoff_agrees_with_dfpn_alone(oracle_data, connect4, name):
    # Connect Four hands positions df-pn has not solved in its hand-off nodes (proofsearch.settings) to alpha-beta.
    handing_off, alone = DfpnSearch(connect4, handoff=50), DfpnSearch(connect4, handoff=False)
    handed_over = 0
    for moves, score in _pons_lines(oracle_data, name, 25):
        position = connect4.parse_position(moves)
        for goal in ("win", "draw"):
            fast, slow = handing_off.prove(position, goal), alone.prove(position, goal)
            assert fast.result == slow.result, (moves, goal)
            handed_over += fast.nodes > 50
            if fast.result == "proven":
                after = connect4.play(position, fast.best)
                assert alone.prove(after, "draw" if goal == "win" else "win").result == "disproven", moves
    assert handed_over >= 5


def test_alphabeta_under_limits_gives_unknown_never_a_guess(connect4):
    search = DfpnSearch(connect4, handoff=100)
    found = search.prove(connect4.parse_position("4453"), "win", max_nodes=20_000)
    assert (found.result, found.reason) == ("unknown", "node limit") and 20_000 <= found.nodes < 25_000
    found = search.prove(connect4.parse_position("4453"), "win", seconds=0.3)
    assert (found.result, found.reason) == ("unknown", "time limit")


def test_node_limit_gives_unknown_never_a_guess(connect4):
    found = prove(connect4, connect4.parse_position("4453"), "win", max_nodes=50)
    assert found.result == "unknown" and found.reason == "node limit"
    assert found.nodes <= 50


def test_time_limit_gives_unknown(connect4):
    found = prove(connect4, connect4.parse_position(""), "win", seconds=0.2)
    assert found.result == "unknown" and found.reason == "time limit"


def test_depth_bound_proves_short_wins_and_leaves_longer_ones_unknown(connect4):
    # x to move wins at once in column 4 (three in the bottom row).
    position = connect4.parse_position("112233")
    assert prove(connect4, position, "win", max_depth=1).result == "proven"
    # x to move: the game is far from over, so no win within 3 plies; the search says unknown
    # (the disproof leans on the horizon), never "disproven".
    found = prove(connect4, connect4.parse_position("44"), "win", max_depth=3)
    assert found.result == "unknown" and found.reason == "depth limit"


def test_finished_position_at_the_root(tictactoe):
    won_by_x = tictactoe.parse_position("xxxoo....")  # o to move, x has a line
    assert prove(tictactoe, won_by_x, "win").result == "disproven"
    assert prove(tictactoe, won_by_x, "draw").result == "disproven"


def test_kernel_compiled_once_for_every_game(connect4, tictactoe):
    from proofsearch.dfpn import dfpn_kernel

    prove(connect4, connect4.parse_position("4453"), "win", max_nodes=10)
    prove(tictactoe, tictactoe.start_position(), "win")
    assert len(dfpn_kernel.signatures) == 1


def test_draw_search_reads_what_the_win_search_settled(oracle_data, connect4):
    # Alpha-beta reads a position's entry for its mover's other goal (same bucket): after a
    # failed win search, the draw search (whose keys are all different) starts from its results.
    lines = [(moves, score) for moves, score in _pons_lines(oracle_data, "Test_L2_R2", 40) if score <= 0][:10]
    shared, saved = DfpnSearch(connect4, TranspositionTable(1 << 20)), 0
    for moves, score in lines:
        position = connect4.parse_position(moves)
        assert shared.prove(position, "win").result == "disproven"
        after_win = shared.prove(position, "draw")
        fresh = DfpnSearch(connect4, TranspositionTable(1 << 20)).prove(position, "draw")
        assert after_win.result == fresh.result == ("proven" if score == 0 else "disproven"), moves
        saved += fresh.nodes - after_win.nodes
        document = extract_proof(shared, position, "draw", after_win.result)
        verdict = check_document(connect4, document)
        assert verdict.valid, (moves, verdict.reason)
    assert saved > 0
