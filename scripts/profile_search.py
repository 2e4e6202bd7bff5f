"""Where the search spends its time: `solver bench`'s searches in one process, with a perf map of
every compiled function, so that `perf` names numba's code instead of printing addresses.

    NUMBA_CACHE_DIR=$(mktemp -d) perf record -F 2000 -o perf.data python scripts/profile_search.py
    perf report -i perf.data --no-children --sort symbol --dsos "[JIT] tid PID"

(PID is the one the script prints.) The empty cache directory matters: a function loaded from
numba's cache keeps no object code to read its symbols from, so every kernel is compiled afresh
(a minute or two), and the compile's share of the samples is outside the ``[JIT]`` objects.
Functions numba or LLVM inlined are counted in their callers.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def compiled_functions() -> dict[int, tuple[int, str]]:
    """{address: (size, symbol)} of every function in the object code of every compiled numba
    dispatcher loaded in this process, placed by each dispatcher's entry point."""
    from numba.core.registry import CPUDispatcher

    found: dict[int, tuple[int, str]] = {}
    dispatchers = {id(value): value for module in list(sys.modules.values())
                   for value in list(getattr(module, "__dict__", {}).values())
                   if isinstance(value, CPUDispatcher)}
    for dispatcher in dispatchers.values():
        for compiled in dispatcher.overloads.values():
            library = compiled.library
            entry_name = compiled.fndesc.llvm_func_name
            try:
                entry = library.get_pointer_to_function(entry_name)
                object_code = library._get_compiled_object()  # (none when loaded from the cache)
            except RuntimeError:
                continue
            symbols = object_symbols(object_code)
            base = next((entry - offset for offset, _, name in symbols if name == entry_name), None)
            if base is not None:
                found.update({base + offset: (size, name) for offset, size, name in symbols})
    return found


def object_symbols(object_code: bytes) -> list[tuple[int, int, str]]:
    """(offset, size, name) of the functions defined in an object file, by ``nm``."""
    with tempfile.NamedTemporaryFile(suffix=".o") as file:
        file.write(object_code)
        file.flush()
        listing = subprocess.run(["nm", "--defined-only", "-S", file.name], capture_output=True, text=True,
                                 check=True).stdout
    symbols = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in ("t", "T"):
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return symbols


def write_perf_map() -> str:
    """Write ``perf-PID.map`` in the temporary directory: the file `perf report` reads to name
    code that no file on disk holds."""
    path = os.path.join(tempfile.gettempdir(), f"perf-{os.getpid()}.map")
    functions = compiled_functions()
    with open(path, "w") as file:
        for address in sorted(functions):
            size, name = functions[address]
            file.write(f"{address:x} {size:x} {name}\n")
    print(f"{len(functions)} compiled functions mapped in {path} (process {os.getpid()})", file=sys.stderr)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="times the bench positions are searched")
    parser.add_argument("--depth", type=int, default=11, help="plies per position")
    args = parser.parse_args()
    import games
    from solver.search.bench_positions import CHESS
    from solver.search.player import Limits, Player

    game = games.get("chess")
    player = Player(game, hash_mb=16)
    player.search(game.start_position(), Limits(depth=1))  # compile everything the search calls
    write_perf_map()
    nodes, started = 0, time.perf_counter()
    for _ in range(args.rounds):
        for fen in CHESS:
            player.new_game()
            nodes += player.search(game.parse_position(fen), Limits(depth=args.depth)).nodes
    seconds = time.perf_counter() - started
    print(f"{nodes:,} nodes in {seconds:.2f} s ({nodes / seconds:,.0f} nodes/s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
