"""Fuzzing with hypothesis (issue 12, item 9): FEN strings, move strings, UCI command lines and
proof files. Nothing may raise anything but the documented error, the UCI engine must keep
answering, and check-proof must never accept a proof of something false.

The normal run tries a modest number of examples per target; ``pytest -m slow`` many more."""
from __future__ import annotations

import io
import json
import os
import re
import threading

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from games.game import NotationError
from proofsearch.checker import check_document, check_file
from proofsearch.dfpn import DfpnSearch
from proofsearch.proof_tree import extract_proof
from solver.uci import UciEngine

CHESS = games.get("chess")
CONNECT4 = games.get("connect4")
TICTACTOE = games.get("tictactoe")
WIN, DRAW, LOSS = 1, 0, -1


# In CI (CI=true, as .ci/run sets it) the examples are derandomized: a run's verdict is the same
# for the same code. Elsewhere each run explores new examples.
DERANDOMIZE = os.environ.get("CI") == "true"


def fuzz(examples: int):
    """hypothesis settings for a fuzz target: ``examples`` of them, no deadline (kernels load)."""
    return settings(max_examples=examples, deadline=None, derandomize=DERANDOMIZE,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def slow(test):
    return pytest.mark.slow(test)


# --- FEN strings ---------------------------------------------------------------------------------

PIECES = "PNBRQKpnbrqk"


@st.composite
def fen_like(draw) -> str:
    """A FEN of a random placement, often near-legal: pieces, side, castling, en passant, counters."""
    squares = draw(st.lists(st.sampled_from(PIECES + "." * 30), min_size=64, max_size=64))
    for king in "Kk":  # usually one king each, so that the deeper checks are reached
        if draw(st.integers(0, 9)):
            squares[draw(st.integers(0, 63))] = king
    rows = []
    for rank in range(8):
        row, empty = "", 0
        for cell in squares[rank * 8:rank * 8 + 8]:
            if cell == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + cell
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    castling = draw(st.sampled_from(["-", "KQkq", "K", "q", "Kk", "Qq", "KQ"]))
    ep = draw(st.sampled_from(["-"] * 4 + [f + r for f in "abcdefgh" for r in "36"]))
    counters = draw(st.sampled_from(["0 1", "5 40", "0 0", "-1 1", "99999999999999999999 1", "", "0"]))
    return " ".join(["/".join(rows), draw(st.sampled_from("wwbbx")), castling, ep, counters]).strip()


def check_fen(text: str) -> None:
    """Parsed (then equal to python-chess's reading of it) or refused with one line; our verdict
    agrees with python-chess's validity, except where we are stricter on purpose."""
    try:
        position = CHESS.parse_position(text)
    except NotationError as error:
        assert "\n" not in str(error)
        accepted = False
    else:
        accepted = True
    try:
        board = chess.Board(text)
    except ValueError:  # malformed for python-chess too
        assert not accepted, f"accepted what python-chess cannot read: {text}"
        return
    status = board.status()
    # Stricter than python-chess on purpose: 4 or 6 fields, counters in range, promoted pieces,
    # castling rights without their king and rook (python-chess drops some of those silently).
    fields = text.split()
    ours_stricter = (len(fields) not in (4, 6) or (len(fields) == 6 and not _counters_ok(text))
                     or _too_many_promoted(board) or set(fields[2]) - {"-"} != set(board.castling_xfen()) - {"-"})
    if accepted:
        # Impossible double checks are kept although python-chess refuses them: the perft suites
        # use them to test move generators.
        assert status & ~chess.STATUS_IMPOSSIBLE_CHECK == chess.STATUS_VALID, (text, status)
        assert CHESS.format_position(position) == board.fen(), text
        assert ({CHESS.format_move(position, m) for m in CHESS.legal_moves(position)}
                == {m.uci() for m in board.legal_moves}), text
    elif status == chess.STATUS_VALID:
        assert ours_stricter, f"refused a valid position: {text}"


def _counters_ok(text: str) -> bool:
    halfmove, fullmove = text.split()[4:6]
    return halfmove.isdigit() and fullmove.isdigit() and int(halfmove) <= 0xFFFF and 1 <= int(fullmove) < 2**31


def _too_many_promoted(board: chess.Board) -> bool:
    for colour in chess.COLORS:
        count = lambda kind: len(board.pieces(kind, colour))  # noqa: E731
        promoted = (max(0, count(chess.QUEEN) - 1) + max(0, count(chess.ROOK) - 2)
                    + max(0, count(chess.BISHOP) - 2) + max(0, count(chess.KNIGHT) - 2))
        if count(chess.PAWN) + promoted > 8:
            return True
    return False


@fuzz(300)
@given(fen_like())
def test_fen_fuzz(text):
    check_fen(text)


@slow
@fuzz(20000)
@given(fen_like())
def test_fen_fuzz_long(text):
    check_fen(text)


@fuzz(200)
@given(st.text(max_size=90))
def test_any_text_as_a_fen_is_parsed_or_refused_in_one_line(text):
    for game in (CHESS, CONNECT4, TICTACTOE):
        try:
            game.parse_position(text)
        except NotationError as error:
            assert "\n" not in str(error)


# --- move strings --------------------------------------------------------------------------------

@st.composite
def played_position(draw):
    """A position of a random chess game (python-chess plays it), as a FEN."""
    board = chess.Board()
    for _ in range(draw(st.integers(0, 80))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board.fen()


MOVE_TEXT = st.one_of(st.text(alphabet="abcdefghij012345678900qrbnkQx-+#= ", max_size=7), st.text(max_size=6))


def check_move_text(game, position, text: str) -> None:
    """A legal move whose notation is the text, or NotationError with one line."""
    try:
        move = game.parse_move(position, text)
    except NotationError as error:
        assert "\n" not in str(error)
        return
    assert move in game.legal_moves(position)
    assert game.format_move(position, move) == text.strip()


@fuzz(300)
@given(played_position(), MOVE_TEXT)
def test_chess_move_fuzz(fen, text):
    check_move_text(CHESS, CHESS.parse_position(fen), text)


@fuzz(200)
@given(st.text(alphabet="0123456789 x-", max_size=10), st.text(alphabet="1234567", max_size=20))
def test_connect4_and_tictactoe_move_fuzz(text, played):
    try:
        position = CONNECT4.parse_position(played)
    except NotationError:
        position = CONNECT4.start_position()
    check_move_text(CONNECT4, position, text)
    check_move_text(TICTACTOE, TICTACTOE.start_position(), text)


@slow
@fuzz(10000)
@given(played_position(), MOVE_TEXT)
def test_chess_move_fuzz_long(fen, text):
    check_move_text(CHESS, CHESS.parse_position(fen), text)


# --- UCI command lines -----------------------------------------------------------------------------

class Lines(io.TextIOBase):
    """A thread-safe text sink that keeps what was written."""

    def __init__(self):
        self.text = ""
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            self.text += text
        return len(text)

    def flush(self) -> None:
        pass


NUMBERS = st.sampled_from(["0", "1", "-1", "5", "100", "99999999999999999999", "-99999999999999999999", "1.5",
                           "nan", "", "x"])
GO_WORDS = ["searchmoves", "ponder", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate",
            "movetime", "infinite", "e2e4", "a1a1", "0000"]
OPTIONS = ["Hash", "Move Overhead", "Ponder", "UCI_Chess960", "Clear Hash", "DatabasePath", "DatabaseCache",
           "ProverNodes", "NullMove", "Threads", "Bogus", "hash"]


@st.composite
def uci_line(draw) -> str:
    kind = draw(st.sampled_from(["go", "position", "setoption", "other", "junk"]))
    if kind == "go":
        words = draw(st.lists(st.one_of(st.sampled_from(GO_WORDS), NUMBERS), max_size=8))
        if not any(word in ("depth", "nodes", "movetime", "wtime", "btime", "mate") for word in words):
            words += ["depth", "2"]  # a go that does not end by itself waits for the next command
        return " ".join(["go", *words])
    if kind == "position":
        setup = draw(st.sampled_from(["startpos", "fen", "fen " + chess.STARTING_FEN, "fen 8/8/8/8/8/8/8/8 w - - 0 1",
                                      "fen k7/8/8/8/8/8/8/K7 w - -", "", "startpos moves", "bogus",
                                      "fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"]))
        moves = draw(st.lists(st.sampled_from(["e2e4", "e7e5", "g1f3", "e2e5", "a1a1", "zz", "e1g1", "0000",
                                               "e7e8q", "moves"]), max_size=5))
        return f"position {setup} moves {' '.join(moves)}" if moves else f"position {setup}"
    if kind == "setoption":
        name = draw(st.sampled_from(OPTIONS))
        value = draw(st.one_of(NUMBERS, st.sampled_from(["true", "false", "<empty>", "/nonexistent", "TRUE"])))
        return draw(st.sampled_from([f"setoption name {name} value {value}", f"setoption name {name}",
                                     f"setoption {name} {value}", "setoption", "setoption name"]))
    if kind == "other":
        return draw(st.sampled_from(["uci", "isready", "ucinewgame", "stop", "ponderhit", "debug on", "register",
                                     "", "   ", "\t"]))
    return draw(st.text(max_size=40))


@pytest.fixture(scope="module")
def engine():
    """One engine for every example: a long session, as with a GUI."""
    output, errors = Lines(), Lines()
    engine = UciEngine(output, errors)
    yield engine, output, errors
    engine.run([])


SESSION_SECONDS = 120


def check_uci_session(engine, lines: list[str]) -> None:
    engine, output, errors = engine
    out_start, err_start = len(output.text), len(errors.text)
    go_count = sum(1 for line in lines if line.split()[:1] == ["go"])
    lines = [line for line in lines if line.split()[:1] != ["quit"]]
    # In a thread with a time limit: a hang fails here instead of stalling the whole run.
    session = threading.Thread(target=engine.run, args=(lines + ["isready"],), daemon=True)
    session.start()
    session.join(SESSION_SECONDS)  # the run ends with the last search finished
    assert not session.is_alive(), f"the engine did not finish the session: {lines!r}"
    said, complained = output.text[out_start:], errors.text[err_start:]
    assert "readyok" in said
    bestmoves = re.findall(r"^bestmove (\S+)(?: ponder \S+)?$", said, flags=re.M)
    assert len(bestmoves) == go_count, said
    assert "search failed" not in complained and "Traceback" not in complained, complained


@fuzz(40)
@given(st.lists(uci_line(), max_size=8))
def test_uci_fuzz(engine, lines):
    check_uci_session(engine, lines)


@slow
@fuzz(1000)
@given(st.lists(uci_line(), max_size=12))
def test_uci_fuzz_long(engine, lines):
    check_uci_session(engine, lines)


def test_uci_input_that_is_not_utf8():
    output, errors = Lines(), Lines()
    engine = UciEngine(output, errors)
    stream = io.TextIOWrapper(io.BytesIO(b"uci\n\xff\xfe garbage\nisready\n"), encoding="utf-8")
    assert engine.run(stream) == 0
    assert "uciok" in output.text and "readyok" in output.text
    assert "unknown command" in errors.text


# --- proof files -------------------------------------------------------------------------------------

class TicTacToeRules:
    """Tic-tac-toe from scratch (no game kernels): the oracle for proofs of its positions."""

    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    @staticmethod
    def parse(text):
        text = text.strip() if isinstance(text, str) else None
        text = "." * 9 if text == "startpos" else text
        if text is None or len(text) != 9 or set(text) - set("xo.") or text.count("x") - text.count("o") not in (0, 1):
            return None
        return text

    def result(self, board):
        """WIN/DRAW/LOSS for the side to move when the game is over, else None."""
        for a, b, c in self.LINES:
            if board[a] != "." and board[a] == board[b] == board[c]:
                return LOSS  # the side that just moved made a line
        return DRAW if "." not in board else None

    def children(self, board):
        mover = "x" if board.count("x") == board.count("o") else "o"
        return [board[:i] + mover + board[i + 1:] for i in range(9) if board[i] == "."]

    def key(self, board):
        return board


class ChessRules:
    """Chess by python-chess: the oracle for proofs of chess positions."""

    @staticmethod
    def parse(text):
        try:
            board = chess.Board(text) if isinstance(text, str) else None
        except ValueError:
            return None
        return board if board is not None and board.is_valid() else None

    def result(self, board):
        if board.is_checkmate():
            return LOSS
        if board.is_stalemate() or board.is_insufficient_material():
            return DRAW
        return None

    def children(self, board):
        out = []
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            out.append(child)
        return out

    def key(self, board):
        return board.board_fen() + (" w" if board.turn else " b") + board.castling_xfen()


def claim_holds(rules, document: dict, depth_cap: int) -> bool | None:
    """Whether the document's claim is true, by the oracle rules (None: beyond ``depth_cap``)."""
    root = rules.parse(document.get("position"))
    if root is None:
        return False
    goal, prover_is_attacker = document["goal"], document["claim"] == "proven"
    max_depth = document.get("max_depth")
    limit = min(max_depth, depth_cap) if max_depth is not None else depth_cap

    def succeeds(attacker_result):
        reached = attacker_result == WIN if goal == "win" else attacker_result != LOSS
        return reached if prover_is_attacker else not reached

    def holds(state, ply, path):
        result = rules.result(state)
        if result is not None:
            return succeeds(result if ply % 2 == 0 else -result)
        if rules.key(state) in path:
            return succeeds(DRAW)
        if ply >= limit:
            return False
        path = path | {rules.key(state)}
        prover_to_move = (ply % 2 == 0) == prover_is_attacker
        found = (holds(child, ply + 1, path) for child in rules.children(state))
        return any(found) if prover_to_move else all(found)

    if holds(root, 0, frozenset()):
        return True
    return False if max_depth is not None and max_depth <= depth_cap else None


def make_proof(game, fen: str, goal: str, max_depth=None) -> dict:
    """A proof document from the prover (the claim it found)."""
    search = DfpnSearch(game)
    position = game.parse_position(fen)
    found = search.prove(position, goal, max_depth=max_depth)
    assert found.result in ("proven", "disproven")
    return extract_proof(search, position, goal, found.result, max_depth)


@pytest.fixture(scope="module")
def proofs() -> list[tuple[object, object, dict]]:
    """(game, oracle rules, proof) for a few roots: both claims, both goals, with and without depth."""
    ttt = TicTacToeRules()
    chess_rules = ChessRules()
    made = [(TICTACTOE, ttt, make_proof(TICTACTOE, fen, goal, depth))
            for fen, goal, depth in [("startpos", "draw", None), ("startpos", "win", None), ("xx.oo....", "win", 1),
                                     ("x...o....", "win", None), ("x...o....", "draw", 8), ("xo.......", "win", 5)]]
    made.append((CHESS, chess_rules, make_proof(CHESS, "7k/8/5K2/8/8/8/8/R7 w - - 0 1", "win", 3)))
    made.append((CHESS, chess_rules, make_proof(CHESS, "6k1/8/6K1/8/8/8/8/R7 w - - 0 1", "win", 1)))
    made.append((CONNECT4, None, make_proof(CONNECT4, "121212", "win", None)))
    made.append((CONNECT4, None, make_proof(CONNECT4, "121212", "draw", None)))
    return made


TOKENS = ["=", "db", "1", "2", "5", "9", "0", "10", "a1a8", "f6g6", "g6f7", "a1a2", "e2e4", "4", "7", "x", "", "  "]


@st.composite
def mutation(draw):
    """A function that changes a proof document (as a dict) or its text."""
    kind = draw(st.sampled_from(["token", "delete", "insert", "swap", "field", "bytes", "truncate"]))
    index = draw(st.integers(0, 10_000))
    token = draw(st.sampled_from(TOKENS))
    field = draw(st.sampled_from(["claim", "goal", "max_depth", "size", "position", "game", "version", "format",
                                  "strategy"]))
    value = draw(st.sampled_from([None, 0, 1, 2, 3, 7, -1, 1.5, True, "", "win", "draw", "proven", "disproven",
                                  "startpos", "x...o....", "xo.......", [], {}, "tictactoe", "chess", 2**70,
                                  "7k/8/5K2/8/8/8/8/R7 w - - 0 1", "7k/8/6K1/8/8/8/8/R7 b - - 0 1"]))
    byte = draw(st.integers(0, 255))

    def apply(document: dict) -> bytes:
        document = dict(document)
        tokens = document["strategy"].split()
        where = index % (len(tokens) + 1)
        if kind == "token" and tokens:
            tokens[where % len(tokens)] = token
        elif kind == "delete" and tokens:
            del tokens[where % len(tokens)]
        elif kind == "insert":
            tokens.insert(where, token)
        elif kind == "swap" and len(tokens) > 1:
            a, b = where % len(tokens), (where + 1) % len(tokens)
            tokens[a], tokens[b] = tokens[b], tokens[a]
        document["strategy"] = " ".join(tokens)
        if kind == "field":
            document[field] = value
        text = json.dumps(document).encode()
        if kind == "bytes":
            text = text[:index % len(text)] + bytes([byte]) + text[index % len(text) + 1:]
        elif kind == "truncate":
            text = text[:index % len(text)]
        return text

    return apply


def check_mutated_proof(proofs, tmp_path_factory, choice: int, mutate) -> None:
    """The checker never raises, and what it accepts is true."""
    game, rules, document = proofs[choice % len(proofs)]
    text = mutate(document)
    path = tmp_path_factory.getbasetemp() / "mutated.json"
    path.write_bytes(text)
    verdict = check_file(game, str(path))
    assert isinstance(verdict.valid, bool) and "\n" not in verdict.reason
    if verdict.valid and rules is not None:
        truth = claim_holds(rules, json.loads(text), depth_cap=9 if rules.__class__ is TicTacToeRules else 3)
        assert truth is not False, f"accepted a wrong proof: {text!r}"


@fuzz(300)
@given(st.integers(0, 100), mutation())
def test_proof_fuzz(proofs, tmp_path_factory, choice, mutate):
    check_mutated_proof(proofs, tmp_path_factory, choice, mutate)


@slow
@fuzz(20000)
@given(st.integers(0, 100), mutation())
def test_proof_fuzz_long(proofs, tmp_path_factory, choice, mutate):
    check_mutated_proof(proofs, tmp_path_factory, choice, mutate)


def test_the_unmutated_proofs_are_valid_and_true(proofs):
    for game, rules, document in proofs:
        assert check_document(game, document).valid
        if rules is not None:
            assert claim_holds(rules, document, depth_cap=9 if rules.__class__ is TicTacToeRules else 3)


def test_json_that_is_not_an_object_is_an_invalid_proof_at_once(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    verdict = check_file(TICTACTOE, str(path))
    assert not verdict.valid and "does not start with a JSON object" in verdict.reason


def test_json_nested_deeply_is_an_invalid_proof(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)  # an object, as proofs are
    verdict = check_file(TICTACTOE, str(path))
    assert not verdict.valid and "nested" in verdict.reason
