"""The Python-side game object: name, notation, and the kernels engines compile against."""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from games.kernels import ONGOING


class NotationError(ValueError):
    """A position or move string that cannot be parsed, or describes something impossible."""


def resolve_kernel(kernel: Any) -> Any:
    """``kernel`` itself, or for a reference ``"module:name"`` the kernel it names (importing the
    module, which compiles or loads from numba's cache every kernel defined there)."""
    if not isinstance(kernel, str):
        return kernel
    module_name, _, name = kernel.partition(":")
    return getattr(importlib.import_module(module_name), name)


class KernelSet:
    """Named kernels, each given as the compiled function or as a reference ``"module:name"``
    that is imported on first use: a game lists the kernels its engines may need without
    loading them, so that a command compiles (or loads) only the kernels it runs. Read-only.
    Subclasses list the names in ``FIELDS``."""

    FIELDS: tuple[str, ...] = ()

    def __init__(self, *kernels: Any, **named: Any):
        if len(kernels) > len(self.FIELDS):
            raise TypeError(f"{type(self).__name__} takes {len(self.FIELDS)} kernels, got {len(kernels)}")
        sources = dict(zip(self.FIELDS, kernels))
        if set(sources) & set(named) or set(sources) | set(named) != set(self.FIELDS):
            raise TypeError(f"{type(self).__name__} takes exactly these kernels: {', '.join(self.FIELDS)}")
        object.__setattr__(self, "_sources", {**sources, **named})

    def __getattr__(self, name: str) -> Any:
        # Reached only for a kernel not resolved yet; it is then stored on the instance.
        sources = self.__dict__.get("_sources", {})
        if name not in sources:
            raise AttributeError(f"{type(self).__name__} has no kernel {name!r}")
        kernel = resolve_kernel(sources[name])
        object.__setattr__(self, name, kernel)
        return kernel

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __reduce__(self):
        return type(self), tuple(self._sources[name] for name in self.FIELDS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.FIELDS)})"


class Kernels(KernelSet):
    """A game's kernels; see :mod:`games.kernels` for the contract of each."""

    FIELDS = ("legal_moves", "play", "outcome", "hash", "evaluate", "is_noisy")


class PlayerKernels(KernelSet):
    """The kernels the alpha-beta player needs beyond :class:`Kernels`; see
    :mod:`games.kernels` ("Player kernels") for the contract of each."""

    FIELDS = ("in_check", "gives_check", "play_null", "move_keys", "noisy_moves", "reversible_plies", "piece_to",
              "is_legal")


class OptionalKernel:
    """A class attribute naming an optional kernel ``"module:name"`` (e.g. Connect Four's
    ``proof_candidates``), imported on first use."""

    def __init__(self, reference: str):
        self.reference = reference

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return resolve_kernel(self.reference)


class Game:
    """A game: its notation on the Python side and its kernels on the numba side.

    Subclasses set the class attributes and implement the four notation methods. Everything
    else here is written once, over the kernels.
    """

    name: str = ""
    position_width: int = 0  # uint64 words per position
    max_moves: int = 0  # an upper bound on the number of legal moves in any position
    move_space: int = 0  # moves are ints in [0, move_space)
    max_game_length: int = 0  # an upper bound on the plies of any game (for per-ply buffers)
    piece_to_space: int = 0  # the range of the player's piece_to kernel; 0: move_space
    fifty_move_plies: int = 0  # a draw when reversible_plies reaches it (chess: 100); 0 = no such rule
    kernels: Kernels
    player: PlayerKernels | None = None  # None: the game cannot be played by the alpha-beta player
    # False when format_move's text depends on the move alone (proofs are then written by the
    # compiled walk of proofsearch.proof_walk)
    move_text_needs_position: bool = True
    # True when a position fixes the number of plies that led to it (every move adds a stone for
    # good, as in Connect Four): no position can repeat, and every path to a position has the
    # same length. Proof search then skips its repetition scan and does not re-read the table
    # entries of a node's other children after searching one (nothing below a child can be its
    # sibling). False is always correct, only slower for such games.
    plies_fixed_by_position: bool = False
    # Optional kernel ``proof_key(pos) -> uint64`` (the hash signature), for games whose positions
    # fix their ply: a hash equal for positions of equal value by a symmetry of the board (an
    # OptionalKernel attribute). The prover keys its table by it, so a position and its mirror
    # image share one entry; without it the table is keyed by ``hash``.

    # --- notation (per game) -----------------------------------------------------------
    @property
    def continuation_space(self) -> int:
        """The range of ``player.piece_to``: ``piece_to_space``, else ``move_space``."""
        return self.piece_to_space or self.move_space

    def parse_position(self, text: str) -> np.ndarray:
        """Parse a position in this game's notation (or ``startpos``); raise NotationError."""
        raise NotImplementedError

    def format_position(self, position: np.ndarray) -> str:
        """Format a position in this game's notation."""
        raise NotImplementedError

    def parse_move(self, position: np.ndarray, text: str) -> int:
        """Parse a move in this game's notation; raise NotationError unless it is legal here."""
        raise NotImplementedError

    def format_move(self, position: np.ndarray, move: int) -> str:
        """Format a move (legal in ``position``) in this game's notation."""
        raise NotImplementedError

    # --- conveniences over the kernels ---------------------------------------------------
    def start_position(self) -> np.ndarray:
        """The initial position."""
        return self.parse_position("startpos")

    def new_position(self) -> np.ndarray:
        """A zeroed position array of the right width (a buffer for ``play``)."""
        return np.zeros(self.position_width, dtype=np.uint64)

    def legal_moves(self, position: np.ndarray) -> list[int]:
        """The legal moves of ``position`` as a list of ints."""
        buffer = np.empty(self.max_moves, dtype=np.int32)
        count = self.kernels.legal_moves(position, buffer)
        return [int(m) for m in buffer[:count]]

    def play(self, position: np.ndarray, move: int) -> np.ndarray:
        """The position after ``move`` (which must be legal)."""
        child = self.new_position()
        self.kernels.play(position, np.int32(move), child)
        return child

    def outcome(self, position: np.ndarray) -> int:
        """WIN, DRAW, LOSS (for the side to move) or ONGOING."""
        buffer = np.empty(self.max_moves, dtype=np.int32)
        count = self.kernels.legal_moves(position, buffer)
        return int(self.kernels.outcome(position, count))

    def is_over(self, position: np.ndarray) -> bool:
        """Whether the game has ended in ``position``."""
        return self.outcome(position) != ONGOING

    def hash(self, position: np.ndarray) -> int:
        """The 64-bit hash of ``position``."""
        return int(self.kernels.hash(position))

    def play_moves(self, position: np.ndarray, moves: list[str]) -> np.ndarray:
        """Play a sequence of moves in notation; raise NotationError at the first illegal one."""
        for text in moves:
            position = self.play(position, self.parse_move(position, text))
        return position

    def format_moves(self, position: np.ndarray, moves: list[int]) -> list[str]:
        """A line of moves from ``position`` in notation, as far as it is legal."""
        texts = []
        for move in moves:
            if move not in self.legal_moves(position):
                break
            texts.append(self.format_move(position, move))
            position = self.play(position, move)
        return texts

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
