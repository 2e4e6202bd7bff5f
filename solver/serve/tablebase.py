"""The Lichess tablebase API (``GET /standard``) answered from our chess tables.

The JSON has lila-tablebase's shape: the position's ``category``, ``dtz``, ``precise_dtz``,
``dtm`` and flags, and its legal ``moves`` best first, each described from the side to move
*after* the move (a winning move has category ``loss``), sorted by Lichess's rules.

Where ours differs from Syzygy's, it is more exact: our DTZ50 is never rounded, so ``dtz``
always equals ``precise_dtz``; our ``dtm`` is the rule-free distance to mate in plies (what
Lichess takes from Gaviota), from tables that cover every 3-5-piece ending built.
"""
from __future__ import annotations

from dataclasses import dataclass

import chess

from databases.errors import DatabaseError, UnusableTableError
from games.value_codes import WDL50_BLESSED_LOSS, WDL50_CURSED_WIN, wdl50_at_clock
from runtime.text import is_ascii_number
from solver.serve.categories import Category

# Rule-free values only (no DTZ50 table): a win may be cursed, so it is a "maybe".
RULE_FREE_CATEGORY = {1: Category.MAYBE_WIN, 0: Category.DRAW, -1: Category.MAYBE_LOSS}
RULE50_PLIES = 100
MAX_FEN_LENGTH = 255


class BadPosition(ValueError):
    """A FEN that is malformed or not a legal chess position (HTTP 400)."""


class NotCovered(LookupError):
    """A position no table holds (for ``/standard/mainline``: 404)."""


@dataclass(frozen=True)
class TableFacts:
    """What the tables say of one position: python-chess's DTZ under the 50-move rule, the
    rule-free signed DTM in plies and rule-free WDL (each None where no table answers)."""
    dtz: int | None = None
    dtm: int | None = None
    wdl: int | None = None


def category(facts: TableFacts, halfmoves: int, halfmoves_before: int, board: chess.Board) -> Category:
    """The Lichess category of a position for its side to move, given its halfmove clock and
    the clock of the position before it (a draw that could already be claimed there turns a
    win into a cursed win)."""
    if board.is_stalemate() or board.is_insufficient_material() or facts.dtz == 0:
        return Category.DRAW
    if board.is_checkmate():
        return Category.LOSS if halfmoves_before < RULE50_PLIES else Category.BLESSED_LOSS
    if facts.dtz is None:
        return Category.UNKNOWN if facts.wdl is None else RULE_FREE_CATEGORY[facts.wdl]
    winning = facts.dtz > 0
    if halfmoves_before >= RULE50_PLIES or wdl50_at_clock(facts.dtz, halfmoves) in (WDL50_CURSED_WIN,
                                                                                     WDL50_BLESSED_LOSS):
        return Category.CURSED_WIN if winning else Category.BLESSED_LOSS
    return Category.WIN if winning else Category.LOSS


def parse_fen(text: str) -> chess.Board:
    """A legal chess position from a FEN (underscores allowed for spaces), or BadPosition."""
    if len(text) > MAX_FEN_LENGTH:
        raise BadPosition(f"fen longer than {MAX_FEN_LENGTH} characters")
    fen = text.replace("_", " ").strip()
    counters = fen.split()[4:]
    if not all(is_ascii_number(counter) for counter in counters):
        # python-chess's int() would take "٣" or "²"
        raise BadPosition("invalid fen: the move counters must be written in the digits 0-9")
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise BadPosition(f"invalid fen: {error}") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        reasons = [flag.name.lower().replace("_", " ") for flag in chess.Status
                   if flag and flag in status and flag.name]
        raise BadPosition(f"illegal position: {', '.join(reasons) or 'invalid'}")
    return board


class ChessTablebase:
    """Answers ``/standard`` from a :class:`databases.reader.Database` of chess tables (and
    the DTZ50 tables beside them). Not thread-safe: the server calls it from one thread."""

    def __init__(self, database, warn=None):
        self.database = database
        self.game = database.game
        self.warn = warn or (lambda message: None)
        self._warned: set[str] = set()

    def facts(self, board: chess.Board) -> TableFacts:
        """DTZ, DTM and WDL of ``board`` from the tables; None for what they do not hold (a
        missing, damaged or not-covering table)."""
        try:
            # the tables' values do not depend on the move counters (the halfmove clock is
            # applied to them by ``category``), and python-chess takes counters the game's
            # parser does not (a halfmove clock over 65535): the position without them
            position = self.game.parse_position(board.epd())
        except ValueError:
            return TableFacts()
        try:
            rule_free = self.database.probe(position)
        except DatabaseError as error:
            self._note(error)
            return TableFacts()
        try:
            dtz = self.database.probe_dtz(position)
        except DatabaseError as error:
            self._note(error)
            dtz = None
        return TableFacts(dtz=dtz, dtm=rule_free.dtm, wdl=rule_free.wdl)

    def _note(self, error: DatabaseError) -> None:
        """Warn once per damaged table; missing tables and uncovered positions are normal."""
        if isinstance(error, UnusableTableError) and str(error) not in self._warned:
            self._warned.add(str(error))
            self.warn(f"warning: {error} (its positions are answered 'unknown')")

    def answer(self, board: chess.Board) -> dict:
        """The ``/standard`` JSON of ``board``."""
        halfmoves = board.halfmove_clock
        moves = [self._move_info(board, move) for move in board.legal_moves]
        moves.sort(key=move_sort_key)
        root = self._position_info(board, self.facts(board), halfmoves, max(halfmoves - 1, 0))
        if moves:
            root["category"] = moves[0]["category"].opposite()
        if root["category"] is Category.UNKNOWN:  # (a move's table damaged): no numbers, as lila
            root.update(dtz=None, precise_dtz=None, dtm=None)
        root["moves"] = [strip_private(move) for move in moves]
        return root

    def mainline(self, board: chess.Board) -> dict:
        """The ``/standard/mainline`` JSON of ``board``, as lila-tablebase's: from a decided
        position, the DTZ-best move of each side (:func:`dtz_sort_key`) until the game ends or
        the 50-move count runs out; each step with the DTZ after it. NotCovered when no
        DTZ50 table answers ``board``."""
        board = board.copy(stack=False)
        dtz = self.facts(board).dtz
        if dtz is None:
            raise NotCovered("no DTZ50 table holds this position")
        mainline = []
        while dtz != 0 and board.halfmove_clock < RULE50_PLIES and not board.is_game_over():
            moves = [self._move_info(board, move) for move in board.legal_moves]
            best = min(moves, key=dtz_sort_key)
            if best["dtz"] is None:  # a table on the way cannot be read: the line stops
                break
            mainline.append({"uci": best["uci"], "san": best["san"], "dtz": best["dtz"],
                             "precise_dtz": best["precise_dtz"]})
            board.push_uci(best["uci"])
        outcome = board.outcome()
        winner = None if outcome is None or outcome.winner is None \
            else "w" if outcome.winner == chess.WHITE else "b"
        return {"dtz": dtz, "precise_dtz": dtz, "mainline": mainline, "winner": winner}

    def _move_info(self, board: chess.Board, move: chess.Move) -> dict:
        zeroing = board.is_zeroing(move)
        captured = board.piece_type_at(move.to_square) if board.is_capture(move) else None
        if board.is_en_passant(move):
            captured = chess.PAWN
        info = {"uci": move.uci(), "san": board.san(move), "zeroing": zeroing,
                "conversion": captured is not None or move.promotion is not None}
        halfmoves_before = board.halfmove_clock
        board.push(move)
        try:
            info.update(self._position_info(board, self.facts(board), board.halfmove_clock,
                                            halfmoves_before))
        finally:
            board.pop()
        info["_captured"] = captured or 0
        info["_promotion"] = move.promotion or 0
        return info

    @staticmethod
    def _position_info(board: chess.Board, facts: TableFacts, halfmoves: int,
                       halfmoves_before: int) -> dict:
        return {
            "checkmate": board.is_checkmate(),
            "stalemate": board.is_stalemate(),
            "variant_win": False,
            "variant_loss": False,
            "insufficient_material": board.is_insufficient_material(),
            "dtz": facts.dtz,
            "precise_dtz": facts.dtz,  # ours is exact: never rounded
            "dtm": facts.dtm,
            "dtw": None,
            "dtc": None,
            "category": category(facts, halfmoves, halfmoves_before, board),
        }


def dtz_sort_key(move: dict) -> tuple:
    """The DTZ-best move first (the mainline's order): the worst category for the opponent,
    mate, then for a winner a zeroing move that keeps the win (the count starts again), else
    the quickest zeroing (the opponent's DTZ nearest 0), for a loser the slowest."""
    dtz = move["dtz"] if move["dtz"] is not None else 0
    winning = dtz < 0  # the opponent loses after the move
    return (move["category"].rank, not move["checkmate"],
            not (winning and move["zeroing"]), -dtz)


def tightening(metric: int | None) -> tuple:
    """Lichess's order of a distance seen by the side to move after the move: its quickest
    loss first (-1, -2, ...), then unknown or 0, then its slowest win (..., 2, 1)."""
    if metric is not None and metric < 0:
        return (0, -metric)
    if metric is None or metric == 0:
        return (1, 0)
    return (2, -metric)


def move_sort_key(move: dict) -> tuple:
    """Best move first, as lila-tablebase sorts them: the worst category for the opponent,
    mates, then stalemates and dead positions (among draws), the quickest mate (slowest loss),
    conversions and zeroing moves first when winning (last when losing) and the quickest
    zeroing, then captures of bigger pieces and promotions to bigger ones."""
    losing = move["category"].is_positive  # the opponent's category: positive is bad for us
    return (
        move["category"].rank,
        not move["checkmate"],
        (not move["stalemate"], not move["insufficient_material"]),
        tightening(move["dtm"]),
        move["conversion"] == losing,
        (move["zeroing"] == losing, (0, 0) if move["dtz"] is None else (1, -move["dtz"])),
        (-move["_captured"], -move["_promotion"]),
    )


def strip_private(move: dict) -> dict:
    """The move's JSON without the fields kept only for sorting."""
    return {key: value for key, value in move.items() if not key.startswith("_")}
