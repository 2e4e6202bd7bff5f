"""Player kernels for games without checks, passes or repetitions (Connect Four, tic-tac-toe):
one compiled copy that every such game lists in its ``PlayerKernels``."""
import numba as nb

from games import kernels as K


@nb.njit(K.IN_CHECK_SIGNATURE, cache=True)
def never_in_check(pos):
    """No checks in this game."""
    return False


@nb.njit(K.GIVES_CHECK_SIGNATURE, cache=True)
def never_gives_check(pos, move):
    """No move gives check in this game."""
    return False


@nb.njit(K.PLAY_NULL_SIGNATURE, cache=True)
def no_pass(pos, child):
    """No passing (in Connect Four zugzwang is the heart of the game: a pass proves nothing)."""
    return False


@nb.njit(K.PIECE_TO_SIGNATURE, cache=True)
def move_itself(pos, move):
    """The move says all there is to say of it (a column, a cell)."""
    return move


@nb.njit(K.REVERSIBLE_PLIES_SIGNATURE, cache=True)
def never_repeats(pos):
    """Every move adds a stone or mark: no position repeats."""
    return 0
