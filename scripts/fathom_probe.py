"""Syzygy WDL and DTZ probes in bulk through Fathom, for the exhaustive oracle checks.

python-chess probes about 10,000 positions a second: every position of KRPvKR would take most
of a day. Fathom (https://github.com/jdart1/Fathom, a C prober descended from the Syzygy
author's own code) answers millions a second when called once per array of positions. It is a
reference tool like rtbgen, not a dependency: point ``--fathom`` at a checkout of its sources and
:func:`build` compiles ``fathom_batch.c`` (ours) together with them into a cached shared library.
The scripts that use it still probe a sample with python-chess and count any disagreement
between the two probers.
"""
from __future__ import annotations

import ctypes
import hashlib
import subprocess
from pathlib import Path

import numpy as np

SHIM = Path(__file__).with_name("fathom_batch.c")
DEFAULT_CACHE = Path.home() / ".cache" / "solver-fathom"  # where the compiled library is kept
FAILED = 99  # the WDL of a probe Fathom could not answer

# python-chess piece types 1..6 (pawn .. king) -> the row of the bitboard in a position's eight
# (white, black, kings, queens, rooks, bishops, knights, pawns)
_ROW_OF_TYPE = {1: 7, 2: 6, 3: 5, 4: 4, 5: 3, 6: 2}


class Fathom:
    """Fathom's WDL prober over a set of Syzygy directories."""

    def __init__(self, library: Path, directories: list[str]):
        self._lib = ctypes.CDLL(str(library))
        self._lib.fathom_open.argtypes = [ctypes.c_char_p]
        self._lib.fathom_open.restype = ctypes.c_int
        self._lib.fathom_probe_wdl_batch.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
        self._lib.fathom_probe_wdl_batch.restype = ctypes.c_long
        self._lib.fathom_probe_dtz_batch.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long] \
            + [ctypes.c_void_p] * 2
        self._lib.fathom_probe_dtz_batch.restype = ctypes.c_long
        self.largest = self._lib.fathom_open(":".join(directories).encode())
        if self.largest <= 0:
            raise RuntimeError(f"Fathom found no Syzygy tables in {', '.join(directories)}")

    def probe_wdl(self, boards: np.ndarray, white_to_move: np.ndarray,
                  en_passant: np.ndarray | None = None) -> np.ndarray:
        """WDL (-2..2 for the side to move, :data:`FAILED` where Fathom cannot answer) of each
        position: ``boards`` is ``(n, 8)`` uint64 as :func:`bitboards` makes them."""
        boards = np.ascontiguousarray(boards, dtype=np.uint64)
        turns = np.ascontiguousarray(white_to_move, dtype=np.uint8)
        ep = (np.zeros(len(turns), dtype=np.uint8) if en_passant is None
              else np.ascontiguousarray(en_passant, dtype=np.uint8))
        wdl = np.empty(len(turns), dtype=np.int8)
        self._lib.fathom_probe_wdl_batch(boards.ctypes.data, turns.ctypes.data, ep.ctypes.data,
                                         len(turns), wdl.ctypes.data)
        return wdl


    def probe_dtz(self, boards: np.ndarray, white_to_move: np.ndarray,
                  en_passant: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(WDL, DTZ) of each position as python-chess's ``probe_wdl``/``probe_dtz`` report
        them (DTZ 0 where the WDL is :data:`FAILED`); arguments as :meth:`probe_wdl`."""
        boards = np.ascontiguousarray(boards, dtype=np.uint64)
        turns = np.ascontiguousarray(white_to_move, dtype=np.uint8)
        ep = (np.zeros(len(turns), dtype=np.uint8) if en_passant is None
              else np.ascontiguousarray(en_passant, dtype=np.uint8))
        wdl = np.empty(len(turns), dtype=np.int8)
        dtz = np.empty(len(turns), dtype=np.int16)
        self._lib.fathom_probe_dtz_batch(boards.ctypes.data, turns.ctypes.data, ep.ctypes.data,
                                         len(turns), wdl.ctypes.data, dtz.ctypes.data)
        return wdl, dtz


def bitboards(squares: np.ndarray, piece_types: list[int], piece_is_white: list[bool]) -> np.ndarray:
    """``(n, 8)`` uint64 bitboards (white, black, kings, queens, rooks, bishops, knights, pawns)
    of ``n`` positions whose piece ``j`` (python-chess type ``piece_types[j]``, colour
    ``piece_is_white[j]``) stands on ``squares[:, j]`` (0 = a1)."""
    boards = np.zeros((squares.shape[0], 8), dtype=np.uint64)
    for j, (kind, white) in enumerate(zip(piece_types, piece_is_white)):
        bit = np.left_shift(np.uint64(1), squares[:, j].astype(np.uint64))
        boards[:, 0 if white else 1] |= bit
        boards[:, _ROW_OF_TYPE[kind]] |= bit
    return boards


def build(source: Path, cache: Path = DEFAULT_CACHE) -> Path:
    """The shared library of ``fathom_batch.c`` with Fathom's ``source`` (its checkout: the
    directory holding ``src/tbprobe.c``), compiled into ``cache`` unless already there."""
    probe_c = Path(source) / "src" / "tbprobe.c"
    if not probe_c.is_file():
        raise FileNotFoundError(f"no Fathom sources at {source} (expected {probe_c})")
    digest = hashlib.sha256(SHIM.read_bytes() + probe_c.read_bytes()).hexdigest()[:16]
    library = Path(cache) / f"fathom_batch-{digest}.so"
    if not library.is_file():
        library.parent.mkdir(parents=True, exist_ok=True)
        partial = library.with_suffix(".tmp")
        # the shim includes tbprobe.c: one translation unit
        subprocess.run(["gcc", "-std=gnu99", "-O2", "-shared", "-fPIC", f"-I{probe_c.parent}",
                        str(SHIM), "-o", str(partial), "-lpthread"], check=True)
        partial.rename(library)
    return library
