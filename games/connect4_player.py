"""Connect Four's kernels for the engines that search it, loaded on first use (the rules in
:mod:`games.connect4` do not import this module): ``evaluate`` and ``is_noisy`` of the kernel
contract, the player kernels ``move_keys`` and ``noisy_moves``, and the prover's optional
``proof_candidates``. The bit layout is drawn in :mod:`games.connect4`.
"""
import numba as nb
import numpy as np
from numba import types

from games import kernels as K
from games.bits import mix64, popcount
from games.connect4 import U1, bottom_mask, dimensions, has_alignment, is_standard, legal_moves

# Each kernel has an inlined body taking the board size, called with the constants 7 and 6 on
# the standard board (see games.connect4.STANDARD_SIZE).


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, inline="always")
def _evaluate(pos, width, height):
    mine = winning_cells(pos[0], pos[1], width, height)
    theirs = winning_cells(pos[0] ^ pos[1], pos[1], width, height)
    return np.int32(10 * (popcount(mine) - popcount(theirs)))


@nb.njit(K.EVALUATE_SIGNATURE, cache=True)
def evaluate(pos):
    """Ten points per empty cell that would complete a four, mover's minus opponent's."""
    if is_standard(pos[2]):
        return _evaluate(pos, 7, 6)
    plies, width, height = dimensions(pos[2])
    return _evaluate(pos, width, height)


@nb.njit(K.IS_NOISY_SIGNATURE, cache=True)
def is_noisy(pos, move):
    """A move that wins at once or fills a cell where the opponent would win."""
    plies, width, height = dimensions(pos[2])
    column_bits = ((U1 << types.uint64(height)) - U1) << types.uint64(move * (height + 1))
    cell = (pos[1] + (U1 << types.uint64(move * (height + 1)))) & column_bits
    threats = winning_cells(pos[0], pos[1], width, height) | winning_cells(pos[0] ^ pos[1], pos[1], width, height)
    return (cell & threats) != 0


# --- Optional kernel for proof search (used by proofsearch.dfpn; not part of games.kernels) ---
# Without it the prover uses legal_moves: still correct, about three times slower on Pons' sets.

@nb.njit(cache=True, inline="always")
def _proof_candidates(pos, moves, width, height):
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


@nb.njit(K.LEGAL_MOVES_SIGNATURE, cache=True)
def proof_candidates(pos, moves):
    """The moves a proof must consider, centre first (Pons' ``possibleNonLosingMoves``): one
    move that wins at once if there is one; otherwise the legal moves minus those that lose at
    once (leaving an immediate win of the opponent unblocked, or playing just below a cell where
    the opponent would win). Returns 0 when every move loses at once. Only for positions where
    the game is not over."""
    if is_standard(pos[2]):
        return _proof_candidates(pos, moves, 7, 6)
    plies, width, height = dimensions(pos[2])
    return _proof_candidates(pos, moves, width, height)


@nb.njit(cache=True, inline="always")
def _proof_key(pos, width, height):
    key = pos[0] + pos[1]
    column_bits = (U1 << types.uint64(height + 1)) - U1
    mirrored = types.uint64(0)
    for column in range(width):
        bits = (key >> types.uint64(column * (height + 1))) & column_bits
        mirrored |= bits << types.uint64((width - 1 - column) * (height + 1))
    return mix64(min(key, mirrored) ^ ((pos[2] >> types.uint64(8)) * types.uint64(0x9E3779B97F4A7C15)))


@nb.njit(K.HASH_SIGNATURE, cache=True)
def proof_key(pos):
    """A hash shared by a position and its mirror image (columns reversed), which have the same
    value: the prover's table then holds one entry for both. Pons' key ``mover + mask`` is taken
    column by column (no carry leaves a column), so the mirror's key is the key's columns
    reversed; the smaller of the two is hashed like :func:`games.connect4.hash_position`."""
    if is_standard(pos[2]):
        return _proof_key(pos, 7, 6)
    plies, width, height = dimensions(pos[2])
    return _proof_key(pos, width, height)


# --- Player kernels (games.kernels, "Player kernels") --------------------------------------

@nb.njit(K.MOVE_KEYS_SIGNATURE, cache=True)
def move_keys(pos, moves, count, keys):
    """The order of ``moves[:count]`` into ``keys``: winning moves, then blocks of an immediate
    threat (both noisy); quiet moves by how many cells the move makes winning for the mover
    (Pons' ``moveScore``) and how central its column is. The two sides' winning cells are
    found once for all the moves."""
    plies, width, height = dimensions(pos[2])
    mine = winning_cells(pos[0], pos[1], width, height)
    theirs = winning_cells(pos[0] ^ pos[1], pos[1], width, height)
    column_full = (U1 << types.uint64(height)) - U1
    centre = width // 2
    for i in range(count):
        move = moves[i]
        shift = types.uint64(move * (height + 1))
        cell = (pos[1] + (U1 << shift)) & (column_full << shift)
        if cell & mine:
            keys[i] = K.ORDER_NOISY + 2
        elif cell & theirs:
            keys[i] = K.ORDER_NOISY + 1
        else:
            threats = popcount(winning_cells(pos[0] | cell, pos[1] | cell, width, height))
            keys[i] = 64 * threats + 16 * (centre - abs(move - centre))


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


@nb.njit(K.IS_LEGAL_SIGNATURE, cache=True)
def is_legal(pos, move):
    """Whether column ``move`` is on the board and has room, and no four are made yet."""
    plies, width, height = dimensions(pos[2])
    if move < 0 or move >= width or has_alignment(pos[0] ^ pos[1], height):
        return False
    return not pos[1] & (U1 << types.uint64(move * (height + 1) + height - 1))
