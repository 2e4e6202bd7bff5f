"""The kernel contract: the compiled functions every game provides to every engine.

This module is the one place where the contract is written down. Engines (perft, retrograde
analysis, proof-number search, alpha-beta) are compiled once against these signatures and
receive a game's kernels as first-class function arguments typed with ``numba.types.FunctionType``.
That typing is what lets numba serve the engines from its on-disk cache: a jitted function that
receives an *untyped* jitted function as an argument recompiles in every process.

Positions
    A position is a one-dimensional, C-contiguous ``uint64`` array of a fixed, game-specific
    width (``Game.position_width``). Kernels never keep references to it. Engines use
    copy-make: ``play`` writes the child into a separate array, so undo is never needed.

Moves
    A move is an ``int32`` in ``[0, Game.move_space)``: dense per game, so engines may index
    tables (history heuristics, proof trees) by move.

Kernels (all ``nopython``, cached, with the explicit signatures below)
    A game lists its kernels in ``Game.kernels`` and ``Game.player`` (``games.game.Kernels``,
    ``PlayerKernels``), each as the compiled function or as a reference ``"module:name"``
    imported on first use. Importing a module compiles (or loads from numba's cache) every
    kernel defined in it, so a game keeps its rules (``legal_moves``, ``play``, ``outcome``,
    ``hash``) apart from the kernels only searching engines need (``evaluate``, ``is_noisy``,
    the player's and the prover's): counting moves or probing a table compiles none of those.

``legal_moves(pos, moves) -> int64``
    Writes the legal moves of ``pos`` into ``moves[0:n]`` and returns ``n``. ``moves`` has room
    for ``Game.max_moves`` entries. A finished game (a Connect Four or tic-tac-toe line made,
    a checkmate or stalemate) has no legal moves. Order is deterministic.

``play(pos, move, child) -> None``
    Writes into ``child`` the position after the legal ``move``. ``child`` and ``pos`` must be
    distinct arrays. Behaviour for an illegal move is undefined (engines only play listed moves).

``outcome(pos, n_legal) -> int64``
    The result of ``pos`` from the side to move's point of view: ``WIN``, ``DRAW``, ``LOSS``,
    or ``ONGOING``. ``n_legal`` is the number ``legal_moves`` returned for ``pos``; passing it
    saves the kernel from generating moves again (a chess position with no moves is mate or
    stalemate). Only rules-level results count: chess repetitions and the 50-move rule are the
    engines' business, but dead positions (insufficient material) are ``DRAW``. ``n_legal`` may
    be ``-1`` (not counted, as in quiescence search): the kernel then reports what it can tell
    without the count (chess: insufficient material, but neither mate nor stalemate).

``hash(pos) -> uint64``
    A 64-bit hash that is a function of the position alone (the same position reached by
    different move orders hashes equally). Suitable for transposition tables.

``evaluate(pos) -> int32``
    A static evaluation from the side to move's point of view, within
    ``[-EVAL_LIMIT, EVAL_LIMIT]`` so that engines can place mate and database scores outside it.

``is_noisy(pos, move) -> boolean``
    Whether quiescence search should expand ``move`` (chess: captures and promotions; Connect
    Four: moves that win at once or block an immediate win of the opponent).

Optional kernels (an attribute of the game object when present; engines fall back without them)

``proof_candidates(pos, moves) -> int64`` (signature of ``legal_moves``)
    A subset of the legal moves such that every move left out loses at once; 0 when every move
    does. Used by proof search (``proofsearch.dfpn``); without it df-pn expands every legal
    move (correct, about three times slower on Connect Four). Connect Four has it.

Player kernels (``Game.player``, a ``PlayerKernels``; the alpha-beta player of :mod:`solver`)

``in_check(pos) -> boolean``
    Whether the side to move is in check (a game without checks: always False). The player
    extends checks, searches every evasion in quiescence and never tries a null move in check.

``play_null(pos, child) -> boolean``
    Writes into ``child`` the position with the side to move passing, and returns True; or
    returns False (``child`` undefined) when a pass is not allowed or is unsafe to assume:
    in check, a game without passes, or a position prone to zugzwang (chess: the mover has only
    king and pawns). This is the null-move pruning's zugzwang guard.

``gives_check(pos, move) -> boolean`` (signature of ``is_noisy``)
    Whether the legal ``move`` puts the opponent in check (a game without checks: always
    False). The search decides pruning and check extensions before it plays a move, so pruned
    moves cost no ``play``.

``move_keys(pos, moves, count, keys) -> None``
    Writes into ``keys[i]`` a static key for ordering the legal move ``moves[i]``, for
    ``i < count`` (one call per node: a kernel call through ``FunctionType`` costs about as much
    as a cheap key). ``>= ORDER_NOISY`` for moves tried before killers and quiet moves (chess:
    captures that do not lose material by static exchange evaluation, and queen promotions,
    ranked most valuable victim / least valuable attacker); ``<= -ORDER_NOISY`` for moves tried
    after every quiet move (chess: captures that lose material; quiescence skips them); in
    between, a quiet move's static preference (added to its history score). Games without
    captures may return small keys only.

``noisy_moves(pos, moves) -> int64`` (signature of ``legal_moves``)
    The legal moves for which ``is_noisy`` holds, in ``legal_moves`` order (quiescence search
    generates only these; a generator that skips quiet moves makes quiescence several times
    cheaper in chess).

``reversible_plies(pos) -> int64``
    Plies since the last irreversible move (chess: the halfmove clock). Repetitions are looked
    for only that far back; a game whose positions never repeat returns 0. With
    ``Game.fifty_move_plies > 0`` a position whose count reaches it is a draw (unless mate).

``piece_to(pos, move) -> int64``
    A small index of what the legal ``move`` does in ``pos``, in ``[0, Game.piece_to_space)``:
    the key of the continuation history (how good a move was after the moves one and two
    plies before it). Chess: the side, the moved piece and the target square (768 values);
    games whose moves say it all: the move itself (``piece_to_space`` = ``move_space``).

``is_legal(pos, move) -> boolean``
    Whether ``move`` is among ``legal_moves(pos)``, for any int32 ``move`` (the search asks it of
    the transposition table's move before generating any move, and a stored move may come from
    another position sharing the hash key). Games with small move lists may look the move up
    in them; chess checks the move alone (:mod:`games.chess.legality`).

Table families (``games.table_family``)
    Games solved by retrograde analysis also provide a table family: named index spaces with
    ``rank``/``unrank`` kernels, and the tables that moves leaving a table land in. Chess and
    tic-tac-toe have one (``games.chess.endgames``, ``games.tictactoe_tables``). A family may
    add un-move generation (``UnmoveKernels``, documented in ``games.table_family``): both do,
    and ``retrograde.unmove`` solves them with it; a family without it is solved by forward
    passes (``retrograde.forward``).
"""
from numba import types

# Results from the side to move's point of view. ONGOING is not a result: the game goes on.
LOSS = -1
DRAW = 0
WIN = 1
ONGOING = 2

# Static evaluations stay strictly inside this bound.
EVAL_LIMIT = 20000

# move_keys keys at or beyond this magnitude rank a move before (or after) every quiet move.
ORDER_NOISY = 1 << 20

POSITION = types.Array(types.uint64, 1, "C")
MOVE_BUFFER = types.Array(types.int32, 1, "C")

LEGAL_MOVES_SIGNATURE = types.int64(POSITION, MOVE_BUFFER)
PLAY_SIGNATURE = types.void(POSITION, types.int32, POSITION)
OUTCOME_SIGNATURE = types.int64(POSITION, types.int64)
HASH_SIGNATURE = types.uint64(POSITION)
EVALUATE_SIGNATURE = types.int32(POSITION)
IS_NOISY_SIGNATURE = types.boolean(POSITION, types.int32)
IN_CHECK_SIGNATURE = types.boolean(POSITION)
GIVES_CHECK_SIGNATURE = IS_NOISY_SIGNATURE
PLAY_NULL_SIGNATURE = types.boolean(POSITION, POSITION)
MOVE_KEYS_SIGNATURE = types.void(POSITION, MOVE_BUFFER, types.int64, MOVE_BUFFER)
REVERSIBLE_PLIES_SIGNATURE = types.int64(POSITION)
PIECE_TO_SIGNATURE = types.int64(POSITION, types.int32)
IS_LEGAL_SIGNATURE = types.boolean(POSITION, types.int32)

# Argument types for engines that receive kernels: declare engine parameters with these.
LegalMovesKernel = types.FunctionType(LEGAL_MOVES_SIGNATURE)
PlayKernel = types.FunctionType(PLAY_SIGNATURE)
OutcomeKernel = types.FunctionType(OUTCOME_SIGNATURE)
HashKernel = types.FunctionType(HASH_SIGNATURE)
EvaluateKernel = types.FunctionType(EVALUATE_SIGNATURE)
IsNoisyKernel = types.FunctionType(IS_NOISY_SIGNATURE)
InCheckKernel = types.FunctionType(IN_CHECK_SIGNATURE)
GivesCheckKernel = types.FunctionType(GIVES_CHECK_SIGNATURE)
PlayNullKernel = types.FunctionType(PLAY_NULL_SIGNATURE)
MoveKeysKernel = types.FunctionType(MOVE_KEYS_SIGNATURE)
ReversiblePliesKernel = types.FunctionType(REVERSIBLE_PLIES_SIGNATURE)
PieceToKernel = types.FunctionType(PIECE_TO_SIGNATURE)
IsLegalKernel = types.FunctionType(IS_LEGAL_SIGNATURE)

# Engines receive these kernels from Python on every call: numba is made to remember their
# addresses instead of asking each dispatcher again (see runtime.kernel_addresses).
from runtime.kernel_addresses import remember_kernel_addresses  # noqa: E402

remember_kernel_addresses()

# Engines take their kernels as first-class functions, also grouped in tuples (the player's
# search): the design rests on that feature, so numba's warning that it is experimental, which
# it repeats at every call that passes such a tuple, says nothing to a user.
import warnings  # noqa: E402

from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402

warnings.filterwarnings("ignore", message=".*First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)
