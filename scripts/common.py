"""What the scripts share: where the oracle data and Stockfish are, and peak memory.

Scripts run as ``python scripts/NAME.py`` find this module beside them (Python puts the
script's directory first on ``sys.path``) and the project's packages through the install
(``pip install -e .``), so none of them edits ``sys.path``.
"""
from __future__ import annotations

import os
import resource
import shutil
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
DEBIAN_STOCKFISH = "/usr/games/stockfish"


def oracle_data() -> Path:
    """The oracle data directory: ``$SOLVER_ORACLE_DATA``, else ``../shared/data`` beside the
    repository (where the machines keep it)."""
    explicit = os.environ.get("SOLVER_ORACLE_DATA")
    return Path(explicit) if explicit else REPOSITORY.parent / "shared" / "data"


def find_stockfish(explicit: str | None = None) -> str | None:
    """The Stockfish binary: ``explicit``, else ``stockfish`` on ``PATH``, else Debian's
    ``/usr/games/stockfish``; None when there is none."""
    if explicit:
        return explicit
    found = shutil.which("stockfish")
    if found:
        return found
    return DEBIAN_STOCKFISH if os.access(DEBIAN_STOCKFISH, os.X_OK) else None


def peak_resident_mib() -> float:
    """This process's peak resident memory in MiB. Linux's ``ru_maxrss`` survives ``exec`` (a
    child started by a big parent reports the parent's peak), so ``VmHWM`` is read, which does
    not; ``ru_maxrss`` only where there is no ``/proc``."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
