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
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import mix64, popcount
from games.game import Game, Kernels, NotationError, PlayerKernels
from games.player_defaults import never_gives_check, never_in_check, never_repeats, no_pass

U1 = types.uint64(1)


@nb.njit(types.UniTuple(types.int64, 3)(types.uint64), cache=True, inline="always")
def _dimensions(meta):
    """(plies, width, height) from the packed meta word."""
    return np.int64(meta & 0xFF), np.int64((meta >> 8) & 0xFF), np.int64((meta >> 16) & 0xFF)


@nb.njit(types.uint64(types.int64, types.int64), cache=True, inline="always")
def bottom_mask(width, height):
    """One bit at the bottom of every column."""
    bits = types.uint64(0)
    for column in range(width):
        bits |= U1 << types.uint64(column * (height + 1))
    return bits


@nb.njit(types.boolean(types.uint64, types.int64), cache=True, inline="always")
def has_alignment(stones, height):
    """Whether ``stones`` contain four in a row in any direction."""
    for shift in (height + 1, height, height + 2, 1):  # horizontal, both diagonals, vertical
        s = types.uint64(shift)
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (s + s)):
            return True
    return False


@nb.njit(types.uint64(types.uint64, types.uint64, types.int64, types.int64), cache=True)
def winning_cells(stones, mask, width, height):
    """Empty cells that would complete four in a row for ``stones`` (playable now or later)."""
    cells = (stones << U1) & (stones << types.uint64(2)) & (stones << types.uint64(3))  # vertical
    for shift in (height + 1, height, height + 2):
        s = types.uint64(shift)
        two_below = (stones << s) & (stones << (s + s))
        cells |= two_below & (stones << (s + s + s))
        cells |= two_below & (stones >> s)
        two_above = (stones >> s) & (stones >> (s + s))
        cells |= two_above & (stones << s)
        cells |= two_above & (stones >> (s + s + s))
    board = bottom_mask(width, height) * ((U1 << types.uint64(height)) - U1)
    return cells & (board ^ mask)


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def legal_moves(pos, moves):
    """Columns with room, left to right, unless the last move made four in a row."""
    plies, width, height = _dimensions(pos[2])
    if has_alignment(pos[0] ^ pos[1], height):
        return 0
    count = 0
    for column in range(width):
        top = U1 << types.uint64(column * (height + 1) + height - 1)
        if not pos[1] & top:
            moves[count] = column
            count += 1
    return count


@nb.njit(K.PLAY_SIGNATURE, cache=True)
def play(pos, move, child):
    """Drop a stone of the side to move into column ``move``."""
    height = np.int64((pos[2] >> 16) & 0xFF)
    child[0] = pos[0] ^ pos[1]  # the opponent becomes the side to move
    child[1] = pos[1] | (pos[1] + (U1 << types.uint64(move * (height + 1))))
    child[2] = pos[2] + U1


@nb.njit(K.OUTCOME_SIGNATURE, cache=True)
def outcome(pos, n_legal):
    """A loss if the last mover made four in a row, a draw on a full board."""
    plies, width, height = _dimensions(pos[2])
    if has_alignment(pos[0] ^ pos[1], height):
        return K.LOSS
    if plies >= width * height:
        return K.DRAW
    return K.ONGOING


@nb.njit(K.HASH_SIGNATURE, cache=True)
def hash_position(pos):
    """Pons' unique key ``mover + mask`` mixed with the board size."""
    return mix64((pos[0] + pos[1]) ^ ((pos[2] >> types.uint64(8)) * types.uint64(0x9E3779B97F4A7C15)))


@nb.njit(K.EVALUATE_SIGNATURE, cache=True)
def evaluate(pos):
    """Ten points per empty cell that would complete a four, mover's minus opponent's."""
    plies, width, height = _dimensions(pos[2])
    mine = winning_cells(pos[0], pos[1], width, height)
    theirs = winning_cells(pos[0] ^ pos[1], pos[1], width, height)
    return np.int32(10 * (popcount(mine) - popcount(theirs)))


@nb.njit(K.IS_NOISY_SIGNATURE, cache=True)
def is_noisy(pos, move):
    """A move that wins at once or fills a cell where the opponent would win."""
    plies, width, height = _dimensions(pos[2])
    column_bits = ((U1 << types.uint64(height)) - U1) << types.uint64(move * (height + 1))
    cell = (pos[1] + (U1 << types.uint64(move * (height + 1)))) & column_bits
    threats = winning_cells(pos[0], pos[1], width, height) | winning_cells(pos[0] ^ pos[1], pos[1], width, height)
    return (cell & threats) != 0


# --- Optional kernel for proof search (used by proofsearch.dfpn; not part of games.kernels) ---
# Without it the prover uses legal_moves: still correct, about three times slower on Pons' sets.

@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def proof_candidates(pos, moves):
    """The moves a proof must consider, centre first (Pons' ``possibleNonLosingMoves``): one
    move that wins at once if there is one; otherwise the legal moves minus those that lose at
    once (leaving an immediate win of the opponent unblocked, or playing just below a cell where
    the opponent would win). Returns 0 when every move loses at once. Only for positions where
    the game is not over."""
    plies, width, height = _dimensions(pos[2])
    mask = pos[1]
    bottom = bottom_mask(width, height)
    column_full = (U1 << types.uint64(height)) - U1
    playable = (mask + bottom) & (bottom * column_full)
    mine = winning_cells(pos[0], mask, width, height)
    theirs = winning_cells(pos[0] ^ mask, mask, width, height)
    wins_now = playable & mine
    if wins_now:
        chosen = wins_now & (~wins_now + U1)  # the lowest one
    else:
        chosen = playable
        forced = playable & theirs
        if forced:
            if forced & (forced - U1):
                return 0  # two immediate threats: nothing blocks both
            chosen = forced
        chosen &= ~(theirs >> U1)
    count = 0
    centre = width // 2
    for k in range(width):
        offset = (k + 1) // 2
        column = centre - offset if k % 2 == 1 else centre + offset
        if 0 <= column < width and chosen & (column_full << types.uint64(column * (height + 1))):
            moves[count] = column
            count += 1
    return count


# --- Player kernels (games.kernels, "Player kernels") --------------------------------------

@nb.njit(types.int32(K.POSITION, types.int32), cache=True)
def move_order(pos, move):
    """Winning moves, then blocks of an immediate threat (both noisy); quiet moves by how
    central the column is and how many cells the move makes winning for the mover."""
    plies, width, height = _dimensions(pos[2])
    column_bits = ((U1 << types.uint64(height)) - U1) << types.uint64(move * (height + 1))
    cell = (pos[1] + (U1 << types.uint64(move * (height + 1)))) & column_bits
    mine = winning_cells(pos[0], pos[1], width, height)
    if cell & mine:
        return np.int32(K.ORDER_NOISY + 2)
    if cell & winning_cells(pos[0] ^ pos[1], pos[1], width, height):
        return np.int32(K.ORDER_NOISY + 1)
    threats = popcount(winning_cells(pos[0] | cell, pos[1] | cell, width, height))
    centre = width // 2
    return np.int32(64 * threats + 16 * (centre - abs(move - centre)))


@nb.njit(K.MOVE_KEYS_SIGNATURE, cache=True)
def move_keys(pos, moves, count, keys):
    """``move_order`` of each of ``moves[:count]`` into ``keys``."""
    for i in range(count):
        keys[i] = move_order(pos, moves[i])


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def noisy_moves(pos, moves):
    """The legal moves that win at once or block an immediate win."""
    count = legal_moves(pos, moves)
    kept = 0
    for i in range(count):
        if is_noisy(pos, moves[i]):
            moves[kept] = moves[i]
            kept += 1
    return kept


class ConnectFour(Game):
    """Connect Four: a position is the columns played from the empty board, digits 1-9 left to
    right (Pascal Pons' convention, e.g. ``4453``); a move is one column digit."""

    name = "connect4"
    position_width = 3
    kernels = Kernels(legal_moves, play, outcome, hash_position, evaluate, is_noisy)
    player = PlayerKernels(never_in_check, never_gives_check, no_pass, move_keys, noisy_moves, never_repeats)
    proof_candidates = staticmethod(proof_candidates)  # optional kernel, see above

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
