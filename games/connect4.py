"""Connect Four as bitboard kernels, for any board with ``width * (height + 1) <= 64``.

Bit layout (Pascal Pons' ``Position.hpp``), shown for the standard 7 x 6 board: each column
takes ``height + 1`` bits, bottom cell first; the extra top bit of every column stays empty, so
that shifting a line of stones never wraps from one column into the next::

    .  .  .  .  .  .  .     <- sentinel row (always 0)
    5 12 19 26 33 40 47
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42     <- bottom row
    1  2  3  4  5  6  7     <- column digits of the notation

Position array: ``[mover, mask, meta]`` where ``mover`` holds the stones of the side to move,
``mask`` every stone, and ``meta`` packs ``plies | width << 8 | height << 16``. Positions carry
their board size, so one set of compiled kernels serves every size. A move is the column index
``0 .. width - 1``.

The rules kernels are here; the kernels only the engines that search need (``evaluate``,
``is_noisy``, the player's and the prover's) are in :mod:`games.connect4_player`, which the game
object names without importing, so that counting moves compiles none of them.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import mix64
from games.game import Game, Kernels, NotationError, OptionalKernel, PlayerKernels

U1 = types.uint64(1)
# The kernels that only the engines searching the game need (player, prover) are loaded on first use.
PLAYER = "games.connect4_player:"
DEFAULTS = "games.player_defaults:"


# The standard 7 x 6 board, as ``meta >> 8`` holds it. Each kernel calls its inlined body with
# the constants 7 and 6 on this board, so that the compiler folds the shifts and unrolls the
# loops over columns; other sizes take the same body with sizes read at run time.
STANDARD_SIZE = 7 | 6 << 8


# inline="always" helpers take no signature: inlined into each caller, never compiled on their own.
@nb.njit(cache=True, inline="always")
def dimensions(meta):
    """(plies, width, height) from the packed meta word."""
    return np.int64(meta & 0xFF), np.int64((meta >> 8) & 0xFF), np.int64((meta >> 16) & 0xFF)


@nb.njit(cache=True, inline="always")
def is_standard(meta):
    """Whether the packed meta word is of the standard 7 x 6 board."""
    return (meta >> types.uint64(8)) == types.uint64(STANDARD_SIZE)


@nb.njit(cache=True, inline="always")
def bottom_mask(width, height):
    """One bit at the bottom of every column."""
    bits = types.uint64(0)
    for column in range(width):
        bits |= U1 << types.uint64(column * (height + 1))
    return bits


@nb.njit(cache=True, inline="always")
def _aligned(stones, shift):
    """Whether ``stones`` hold four in a row along ``shift``."""
    s = types.uint64(shift)
    pairs = stones & (stones >> s)
    return (pairs & (pairs >> (s + s))) != 0


@nb.njit(cache=True, inline="always")
def has_alignment(stones, height):
    """Whether ``stones`` contain four in a row in any direction: horizontal, both diagonals,
    vertical."""
    return (_aligned(stones, height + 1) or _aligned(stones, height) or _aligned(stones, height + 2)
            or _aligned(stones, 1))


@nb.njit(cache=True, inline="always")
def _legal_moves(pos, moves, width, height):
    if has_alignment(pos[0] ^ pos[1], height):
        return 0
    count = 0
    for column in range(width):
        top = U1 << types.uint64(column * (height + 1) + height - 1)
        if not pos[1] & top:
            moves[count] = column
            count += 1
    return count


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def legal_moves(pos, moves):
    """Columns with room, left to right, unless the last move made four in a row."""
    if is_standard(pos[2]):
        return _legal_moves(pos, moves, 7, 6)
    plies, width, height = dimensions(pos[2])
    return _legal_moves(pos, moves, width, height)


@nb.njit(K.PLAY_SIGNATURE, cache=True)
def play(pos, move, child):
    """Drop a stone of the side to move into column ``move``."""
    height = np.int64((pos[2] >> 16) & 0xFF)
    child[0] = pos[0] ^ pos[1]  # the opponent becomes the side to move
    child[1] = pos[1] | (pos[1] + (U1 << types.uint64(move * (height + 1))))
    child[2] = pos[2] + U1


@nb.njit(cache=True, inline="always")
def _outcome(pos, width, height):
    plies = np.int64(pos[2] & 0xFF)
    if has_alignment(pos[0] ^ pos[1], height):
        return K.LOSS
    if plies >= width * height:
        return K.DRAW
    return K.ONGOING


@nb.njit(K.OUTCOME_SIGNATURE, cache=True)
def outcome(pos, n_legal):
    """A loss if the last mover made four in a row, a draw on a full board."""
    if is_standard(pos[2]):
        return _outcome(pos, 7, 6)
    plies, width, height = dimensions(pos[2])
    return _outcome(pos, width, height)


@nb.njit(K.HASH_SIGNATURE, cache=True)
def hash_position(pos):
    """Pons' unique key ``mover + mask`` mixed with the board size."""
    return mix64((pos[0] + pos[1]) ^ ((pos[2] >> types.uint64(8)) * types.uint64(0x9E3779B97F4A7C15)))


class ConnectFour(Game):
    """Connect Four: a position is the columns played from the empty board, digits 1-9 left to
    right (Pascal Pons' convention, e.g. ``4453``); a move is one column digit."""

    name = "connect4"
    position_width = 3
    kernels = Kernels(legal_moves, play, outcome, hash_position, PLAYER + "evaluate", PLAYER + "is_noisy")
    player = PlayerKernels(DEFAULTS + "never_in_check", DEFAULTS + "never_gives_check", DEFAULTS + "no_pass",
                           PLAYER + "move_keys", PLAYER + "noisy_moves", DEFAULTS + "never_repeats",
                           DEFAULTS + "move_itself", PLAYER + "is_legal")
    proof_candidates = OptionalKernel(PLAYER + "proof_candidates")  # see games.connect4_player
    proof_key = OptionalKernel(PLAYER + "proof_key")  # a board and its mirror share table entries
    move_text_needs_position = False  # a column / cell digit
    plies_fixed_by_position = True  # every move adds a stone

    def __init__(self, width: int = 7, height: int = 6):
        if not (4 <= width <= 9 and 4 <= height and width * (height + 1) <= 64):
            raise ValueError(f"unsupported board {width}x{height}: need 4..9 columns and width*(height+1) <= 64")
        self.width, self.height = width, height
        self.max_moves = width
        self.move_space = width
        self.max_game_length = width * height

    def empty_position(self) -> np.ndarray:
        """The empty board."""
        return np.array([0, 0, self.width << 8 | self.height << 16], dtype=np.uint64)

    def parse_position(self, text: str) -> np.ndarray:
        """Replay a column sequence from the empty board, refusing full columns and moves
        after the game has ended."""
        text = text.strip()
        if text == "startpos":
            text = ""
        bad = sorted({c for c in text if not ("1" <= c <= str(self.width))})
        if bad:
            raise NotationError(f"connect4 position must be column digits 1-{self.width}, got {bad}")
        position = self.empty_position()
        for ply, char in enumerate(text, start=1):
            if self.is_over(position):
                raise NotationError(f"impossible position: the game was already over before move {ply} ({text!r})")
            column = int(char) - 1
            if column not in self.legal_moves(position):
                raise NotationError(f"column {char} is full at move {ply} ({text!r})")
            position = self.play(position, column)
        return position

    def format_position(self, position: np.ndarray) -> str:
        """A column sequence that reaches ``position`` from the empty board."""
        sequence = _reconstruct_sequence(position, self.width, self.height)
        return "".join(str(column + 1) for column in sequence)

    def parse_move(self, position: np.ndarray, text: str) -> int:
        """Parse a column digit that is legal in ``position``."""
        text = text.strip()
        if len(text) != 1 or not ("1" <= text <= str(self.width)):
            raise NotationError(f"connect4 move must be a column digit 1-{self.width}, got {text!r}")
        column = int(text) - 1
        if column not in self.legal_moves(position):
            raise NotationError(f"illegal move {text}: column full or game over")
        return column

    def format_move(self, position: np.ndarray, move: int) -> str:
        """Format as a column digit."""
        return str(move + 1)


def _reconstruct_sequence(position: np.ndarray, width: int, height: int) -> list[int]:
    """Find a move order reaching ``position``: undo the top stone of some column that belongs
    to the last mover, never passing through a position where the game was already over."""
    mover, mask = int(position[0]), int(position[1])
    plies = int(position[2]) & 0xFF
    column_size = height + 1
    failed: set[tuple[int, int]] = set()

    def last_mover_stones(mover_bits: int, mask_bits: int) -> int:
        return mover_bits ^ mask_bits

    def undo(mover_bits: int, mask_bits: int, remaining: int) -> list[int] | None:
        if remaining == 0:
            return []
        if (mover_bits, mask_bits) in failed:
            return None
        last = last_mover_stones(mover_bits, mask_bits)
        for column in range(width):
            column_bits = ((1 << height) - 1) << (column * column_size)
            stones = mask_bits & column_bits
            if not stones:
                continue
            top = 1 << (stones.bit_length() - 1)
            if not last & top:
                continue
            parent_mask = mask_bits ^ top
            parent_mover = last ^ top  # the last mover was to move in the parent
            if remaining > 1 and _game_over_bits(parent_mover, parent_mask, height):
                continue
            rest = undo(parent_mover, parent_mask, remaining - 1)
            if rest is not None:
                return rest + [column]
        failed.add((mover_bits, mask_bits))
        return None

    sequence = undo(mover, mask, plies)
    if sequence is None:
        raise NotationError("position cannot be reached by legal play")
    return sequence


def _game_over_bits(mover: int, mask: int, height: int) -> bool:
    """Whether either player has four in a row (plain Python, for notation only)."""
    for stones in (mover, mover ^ mask):
        for shift in (height + 1, height, height + 2, 1):
            pairs = stones & (stones >> shift)
            if pairs & (pairs >> (2 * shift)):
                return True
    return False
