"""Value codes: a position's game-theoretic value and its distance to the end in one small
unsigned integer, the entry of every endgame table.

The one definition of the codes, their arithmetic and their order, used by the generators
(the games' table kernels, :mod:`retrograde`), the store and reader (:mod:`databases`), the
verifier, the prover's and the player's leaves::

    0            INVALID    no legal position has this index
    1            CODE_DRAW  a draw
    2 + 2 * d    the side to move loses in d plies (d = 0: it is mated / has lost)
    3 + 2 * d    the side to move wins in d plies

Unresolved entries while a table is built, in the generators' one-byte work arrays (so their
distances stop at ``LONGEST_BYTE_DISTANCE``): ``GEN_UNKNOWN``; ``GEN_FLAGGED`` when a level has
marked the entry for a look at its moves; or ``count_code(c)`` (``COUNT_BASE + c``) for an
entry that counts its moves inside the table not yet known to lose for the opponent (a
generator that keeps such counts decrements them as children are decided, and the entry is
lost when the count reaches 0). Every one reads as a distance no level reaches, so never as
known. ``STORE_UNKNOWN`` in ``uint16`` arrays (forward passes; a batch probe whose page is not
resident). None of them reaches a file.

The same codes carry DTZ50 (distance to the next zeroing move under the 50-move rule, the
tables of :mod:`retrograde.dtz50`): ``d`` counts plies to the next capture, pawn move or mate,
and a distance above ``CURSE_PLIES`` marks a result the rule overturns (a cursed win or a
blessed loss). :func:`zeroing_value`, :func:`wdl50` and :func:`python_chess_dtz` are their
arithmetic.

Order, for the side to move (:func:`better`): a win beats a draw beats a loss; a quicker win
beats a slower one, a slower loss a quicker one.

The compiled functions are inlined into the kernels that call them, and typed there (no
signature: importing this module compiles nothing, so commands that never touch a table do not
pay for it); Python calls them too, at the cost of a dispatch.

>>> encode(WIN, 5), encode(LOSS, 0), encode(DRAW, 0)
(13, 2, 1)
>>> decode(13), decode(2), decode(1)
((1, 5), (-1, 0), (0, 0))
>>> int(parent_code(13)), int(parent_code(2)), bool(better(13, 15)), bool(better(4, 2))
(14, 5, True, True)
>>> int(shifted(13, 2)), int(shifted(13, 9)), int(stored_code(5, 100)), int(stored_code(3, 100))
(9, 3, 205, -1)
>>> wdl50(win_code(100)), wdl50(win_code(101)), wdl50(loss_code(120)), wdl50(CODE_DRAW)
(2, 1, -1, 0)
>>> int(zeroing_value(loss_code(7))), int(zeroing_value(loss_code(150))), python_chess_dtz(2)
(5, 205, -1)
>>> int(rule_class(loss_code(7))), int(rule_class(win_code(150))), int(rule_class(CODE_DRAW))
(2, 203, 1)
"""
from __future__ import annotations

import numba as nb
import numpy as np

from games.kernels import DRAW, LOSS, WIN

INVALID = 0
CODE_DRAW = 1
GEN_UNKNOWN = 255
GEN_FLAGGED = 254  # unresolved, to be looked at in this level (the one-byte generators)
COUNT_BASE = 206  # count_code(0): unresolved, every move inside the table known won for them
MOST_COUNTED = GEN_FLAGGED - 1 - COUNT_BASE  # 47 moves; an entry with more is GEN_UNKNOWN
STORE_UNKNOWN = 0xFFFF
LONGEST_BYTE_DISTANCE = 101  # win_code(101) = 205: a win in 102 plies would be a count
INVALID_VALUE = 3  # the value decode() reports for an invalid index
CURSE_PLIES = 100  # DTZ50: the 50-move rule draws after 100 plies without a zeroing move
ZEROING_WORTH = 1  # DTZ50: a zeroing move into a position lost under the rule
CURSED_WORTH = CURSE_PLIES + 1  # DTZ50: one into a position whose loss the rule saves
# WDL50 values (python-chess's, and the packed tables'): the result under the 50-move rule for
# the side to move, counted from a zeroing move; a cursed win and a blessed loss are draws by the
# rule that a win or a loss would be without it.
WDL50_LOSS, WDL50_BLESSED_LOSS, WDL50_DRAW, WDL50_CURSED_WIN, WDL50_WIN = -2, -1, 0, 1, 2


@nb.njit(cache=True, inline="always")
def win_code(distance):
    """The code of a win in ``distance`` plies."""
    return 3 + 2 * distance


@nb.njit(cache=True, inline="always")
def loss_code(distance):
    """The code of a loss in ``distance`` plies."""
    return 2 + 2 * distance


@nb.njit(cache=True, inline="always")
def code_distance(code):
    """Plies to the end of a win or loss code."""
    return (code - 2) >> 1


@nb.njit(cache=True, inline="always")
def is_win(code):
    """Whether ``code`` is a win for the side to move."""
    return code >= 3 and code & 1 == 1


@nb.njit(cache=True, inline="always")
def is_loss(code):
    """Whether ``code`` is a loss for the side to move."""
    return code >= 2 and code & 1 == 0


@nb.njit(cache=True, inline="always")
def parent_code(child):
    """The code of a position for the move that leads to a child with code ``child`` (decided):
    a draw stays a draw, a child's win is a loss one ply later, a child's loss a win."""
    if child == CODE_DRAW:
        return CODE_DRAW
    distance = code_distance(child) + 1
    if child & 1:
        return loss_code(distance)
    return win_code(distance)


@nb.njit(cache=True, inline="always")
def _rank(code):
    # Higher is better for the side to move: wins above 0 (quicker higher), draws 0, losses
    # below 0 (slower higher).
    if is_win(code):
        return (1 << 40) - code
    if code == CODE_DRAW:
        return 0
    return code - (1 << 40)


@nb.njit(cache=True, inline="always")
def better(a, b):
    """Whether code ``a`` is better than ``b`` for the side to move (both decided)."""
    return _rank(a) > _rank(b)


@nb.njit(cache=True, inline="always")
def is_unresolved(code):
    """Whether a generator's one-byte ``code`` is still open (``GEN_UNKNOWN``, ``GEN_FLAGGED``
    or a count)."""
    return code >= COUNT_BASE


@nb.njit(cache=True, inline="always")
def count_code(count):
    """The one-byte code of an unresolved entry with ``count`` (at most ``MOST_COUNTED``)
    moves inside the table not yet known won for the opponent."""
    return COUNT_BASE + count


@nb.njit(cache=True, inline="always")
def is_count(code):
    """Whether a generator's one-byte ``code`` is a count (:func:`count_code`)."""
    return COUNT_BASE <= code < GEN_FLAGGED


@nb.njit(cache=True, inline="always")
def shifted(code, shift):
    """``code`` with its distance ``shift`` plies shorter (floored at 0); draws and the
    unresolved code unchanged. How generators count distances from an offset
    (:mod:`games.table_family`)."""
    if code < 2 or code >= COUNT_BASE:
        return code
    distance = code_distance(code) - shift
    if distance < 0:
        distance = 0
    return (code & 1) + 2 + 2 * distance


@nb.njit(cache=True, inline="always")
def stored_code(code, offset):
    """The storage code of a generator's one-byte ``code`` whose distance counts from
    ``offset`` plies: unresolved is a draw (for now); -1 for an entry floored to distance 0 by
    a shift (its code was stored before the shift)."""
    if code >= COUNT_BASE:
        return CODE_DRAW
    if code < 2:
        return code
    if offset > 0 and code_distance(code) == 0:
        return -1
    return shifted(code, -offset)


@nb.njit(cache=True, inline="always")
def within_rule(code):
    """Whether a decided DTZ50 code's win or loss holds under the 50-move rule (counted from
    a zeroing move): its distance is at most ``CURSE_PLIES``."""
    return code_distance(code) <= CURSE_PLIES


@nb.njit(cache=True, inline="always")
def zeroing_value(child):
    """The DTZ50 code, for the mover, of a zeroing move (capture, pawn move) into a position
    with DTZ50 code ``child``, counted afresh from that move: a win or loss in
    ``ZEROING_WORTH`` ply if the child's result holds under the rule, in ``CURSED_WORTH`` if
    the rule overturns it; a draw stays a draw. (A quiet move's value is
    :func:`parent_code`.)"""
    if child == CODE_DRAW:
        return CODE_DRAW
    worth = ZEROING_WORTH if within_rule(child) else CURSED_WORTH
    if child & 1:
        return loss_code(worth)
    return win_code(worth)


@nb.njit(cache=True, inline="always")
def rule_class(code):
    """A decided DTZ50 storage code (``uint16``: distances beyond a byte are codes, not
    counts) cut to what a zeroing move into it is worth: distance 0 when its result holds
    under the rule, ``CURSE_PLIES`` when the rule overturns it (draws and invalid entries
    unchanged). ``parent_code(rule_class(c)) == zeroing_value(c)``: a generator that values
    moves by ``parent_code`` values zeroing moves right on codes cut so."""
    if code < 2:
        return code
    far = 0 if within_rule(code) else CURSE_PLIES
    return (code & 1) + loss_code(far)


@nb.njit(cache=True, inline="always")
def zeroing_class(code):
    """A decided DTZ50 code cut to the least that tells what a zeroing move into it is worth,
    small enough for a byte: distance 0 when its result holds under the rule,
    ``CURSED_WORTH`` when the rule overturns it (draws and invalid entries unchanged).
    Unlike :func:`rule_class` the cut keeps :func:`within_rule`, so
    ``zeroing_value(zeroing_class(c)) == zeroing_value(c)``."""
    if code < 2:
        return code
    far = 0 if within_rule(code) else CURSED_WORTH
    return (code & 1) + loss_code(far)


@nb.njit(cache=True, inline="always")
def wdl50(code):
    """python-chess's WDL of a decided DTZ50 code: 2 win, 1 cursed win, 0 draw, -1 blessed
    loss, -2 loss, for the side to move."""
    if code == CODE_DRAW:
        return WDL50_DRAW
    strength = WDL50_WIN if within_rule(code) else WDL50_CURSED_WIN
    return strength if code & 1 else -strength


def python_chess_dtz(code: int) -> int:
    """The DTZ of a DTZ50 code as python-chess's ``probe_dtz`` reports Syzygy's: signed plies
    to the next zeroing move (positive when the side to move wins), 0 for a draw, -1 for a
    mated position. Ours is exact; Syzygy's may be one ply short away from the 100-ply edge."""
    code = int(code)
    if code == CODE_DRAW:
        return 0
    distance = code_distance(code)
    if code & 1:
        return distance
    return -max(distance, 1)


def wdl50_at_clock(dtz: int, halfmoves: int) -> int:
    """The value under the 50-move rule (2 win, 1 cursed win, 0 draw, -1 blessed loss, -2
    loss) of a position whose python-chess DTZ is ``dtz`` (:func:`python_chess_dtz`, counted
    from a fresh clock) with ``halfmoves`` already on its clock: the zeroing move must come
    within the 100 plies the clock has left (Lichess's rule)."""
    if dtz == 0:
        return WDL50_DRAW
    strength = WDL50_CURSED_WIN if abs(dtz) + halfmoves > CURSE_PLIES else WDL50_WIN
    return strength if dtz > 0 else -strength


def encode(value: int, dtm: int) -> int:
    """The code of ``value`` (WIN/DRAW/LOSS for the side to move) reached in ``dtm`` plies."""
    if value == DRAW:
        return CODE_DRAW
    if value == WIN:
        return int(win_code(dtm))
    if value == LOSS:
        return int(loss_code(dtm))
    raise ValueError(f"not a value: {value}")


def decode(code: int) -> tuple[int, int]:
    """``(value, dtm)`` of a code: value WIN/DRAW/LOSS (or INVALID_VALUE), dtm in plies >= 0."""
    code = int(code)
    if code == INVALID:
        return INVALID_VALUE, 0
    if code == CODE_DRAW:
        return DRAW, 0
    return (WIN if code & 1 else LOSS), int(code_distance(code))


def longest_distance(top: int) -> int:
    """Plies of the longest win or loss in a table whose highest code is ``top`` (0 when it
    holds none)."""
    top = int(top)
    return int(code_distance(top)) if top >= loss_code(0) else 0


def code_distances(codes: np.ndarray) -> np.ndarray:
    """:func:`code_distance` of every code of an array (0 for draws and invalid entries)."""
    return np.where(codes >= loss_code(0), code_distance(codes), 0)


def byte_holds(longest: int) -> bool:
    """Whether every code of distances up to ``longest`` plies fits in one byte below the
    generators' unresolved codes."""
    return win_code(longest) < GEN_UNKNOWN


@nb.njit(cache=True, inline="always")
def terminal_code(result):
    """The code of a position the rules have ended (a game result from ``outcome``, for the
    side to move), or -1 for ``ONGOING``."""
    if result == DRAW:
        return CODE_DRAW
    if result == LOSS:
        return loss_code(0)
    if result == WIN:
        return win_code(0)
    return -1


__all__ = ["INVALID", "CODE_DRAW", "GEN_UNKNOWN", "GEN_FLAGGED", "COUNT_BASE", "MOST_COUNTED",
           "STORE_UNKNOWN", "LONGEST_BYTE_DISTANCE", "INVALID_VALUE", "win_code", "loss_code",
           "code_distance", "is_win", "is_loss", "parent_code", "better", "is_unresolved",
           "count_code", "is_count", "shifted", "stored_code", "encode", "decode", "CURSE_PLIES",
           "ZEROING_WORTH", "CURSED_WORTH", "within_rule", "zeroing_value", "rule_class",
           "zeroing_class", "wdl50", "python_chess_dtz", "longest_distance", "code_distances", "byte_holds", "terminal_code"]
