"""`solver serve` under load: requests per second and latency percentiles of ``/standard`` with
many concurrent clients, on cold pages (each position asked once of a fresh server) and warm
ones (the same positions again); then bad input and thousands of idle connections, with the
server's memory before and after.

The server runs as its own process (``solver serve --bind 127.0.0.1:0``), the clients in this
one (aiohttp). Positions are random legal positions of the tables built under ``--db`` that
have their DTZ50 table.

Reference, measured in the same run: python-chess answering the same positions from Syzygy's
3-4-piece tables in process, with no HTTP (WDL and DTZ of the position and of every child: the
table work of an answer). lila-tablebase (Rust) cannot be built here (no crates.io); its
published load is 10-35 requests/s in production on 7-piece tables (lichess.org blog
"Optimizing the tablebase server", 2024), whose latencies are those of hard disks.

    python scripts/bench_serve.py --db DIR [--requests 2000] [--concurrency 32] [--out F.json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from common import oracle_data

from databases.location import DTZ50, table_path
from games.chess import endgames as E
from games.chess.random_positions import random_board

BAD_QUERIES = ["fen=", "fen=garbage", "fen=8/8/8/8/8/8/8/8_w_-_-_0_1", "", "fen=" + "x" * 300,
               "fen=4k3/8/8/8/8/8/8/4KQ2_w_-_-_0_1%00", "fen=%ff%fe"]


def positions(db: Path, count: int, seed: int, max_pieces: int) -> list[str]:
    """``count`` random FENs spread over the tables under ``db`` that have a DTZ50 table."""
    tables = [table for table in E.tables_up_to(max_pieces)
              if table_path(db, "chess", table, DTZ50).is_file() and len(table) > 3]
    if not tables:
        sys.exit(f"bench_serve: no chess tables with DTZ50 under {db} (solver build chess --pieces 4)")
    rng = random.Random(seed)
    return [random_board(rng.choice(tables), rng).fen() for _ in range(count)]


def start_server(db: Path, cache_mb: float) -> tuple[subprocess.Popen, str]:
    """A `solver serve` process and its URL, once it says it is ready."""
    process = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--db", str(db), "--bind",
                                "127.0.0.1:0", "--cache-mb", str(cache_mb)],
                               stdout=subprocess.PIPE, text=True)
    url = None
    for line in process.stdout:
        if "http://" in line:
            url = line.split()[2].rstrip("/")
        if line.strip().endswith("ready"):
            return process, url
    sys.exit("bench_serve: the server ended before it was ready")


def resident_mib(pid: int) -> dict:
    """Current and peak resident memory of a process, MiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                fields[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return fields


async def load(url: str, fens: list[str], concurrency: int) -> dict:
    """Ask for every FEN with ``concurrency`` clients at a time: rate and latencies."""
    import aiohttp

    latencies, statuses = [], {}
    queue = list(reversed(fens))
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def client():
            while queue:
                fen = queue.pop()
                started = time.perf_counter()
                async with session.get(f"{url}/standard", params={"fen": fen}) as response:
                    await response.read()
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    latencies.sort()

    def percentile(p):
        return round(1000 * latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))], 2)

    return {"requests": len(fens), "seconds": round(elapsed, 2),
            "requests_per_second": round(len(fens) / elapsed, 1),
            "p50_ms": percentile(50), "p95_ms": percentile(95), "p99_ms": percentile(99),
            "max_ms": round(1000 * latencies[-1], 2), "statuses": statuses}


async def bad_input(url: str, rounds: int) -> dict:
    """Malformed queries and raw garbage: the status of each, and whether a good one still
    answers afterwards."""
    import aiohttp

    statuses: dict[int, int] = {}
    host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
    async with aiohttp.ClientSession() as session:
        for _ in range(rounds):
            for query in BAD_QUERIES:
                async with session.get(f"{url}/standard?{query}") as response:
                    body = await response.text()
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                    assert response.status >= 400 and body.count("\n") <= 1, (query, body)
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"\x16\x03\x01 garbage\r\n\r\n")
            await writer.drain()
            line = await reader.readline()
            statuses[int(line.split()[1])] = statuses.get(int(line.split()[1]), 0) + 1
            writer.close()
        async with session.get(f"{url}/standard", params={"fen": "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"}) as response:
            still_serving = response.status == 200
    return {"statuses": statuses, "still_serving": still_serving}


async def idle_connections(url: str, count: int, fens: list[str], concurrency: int) -> dict:
    """Hold ``count`` idle connections open while loading the server; close them after."""
    host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
    held, refused = [], 0
    for _ in range(count):
        try:
            held.append(await asyncio.open_connection(host, port))
        except OSError:
            refused += 1
    result = await load(url, fens, concurrency)
    for _, writer in held:
        writer.close()
    return {"idle_connections": len(held), "refused": refused, "load_meanwhile": result}


def python_chess_reference(fens: list[str], syzygy_dir: Path) -> dict | None:
    """python-chess's Syzygy probes for the same answers (3-4 pieces), in process."""
    import chess
    import chess.syzygy

    boards = [chess.Board(fen) for fen in fens if len(chess.Board(fen).piece_map()) <= 4]
    if not boards or not syzygy_dir.is_dir():
        return None
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as tablebase:
        started = time.perf_counter()
        for board in boards:
            tablebase.probe_wdl(board), tablebase.probe_dtz(board)
            for move in list(board.legal_moves):
                board.push(move)
                if not board.is_game_over():
                    tablebase.probe_wdl(board), tablebase.probe_dtz(board)
                board.pop()
        elapsed = time.perf_counter() - started
    return {"positions": len(boards), "answers_per_second": round(len(boards) / elapsed, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, type=Path, help="database directory with chess tables")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--idle", type=int, default=2000, help="idle connections held open")
    parser.add_argument("--max-pieces", type=int, default=5)
    parser.add_argument("--cache-mb", type=float, default=64.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    fens = positions(args.db, args.requests, args.seed, args.max_pieces)
    four = [fen for fen in fens if sum(c.isalpha() for c in fen.split()[0]) <= 4]
    process, url = start_server(args.db, args.cache_mb)
    try:
        results = {"server_memory_start": resident_mib(process.pid)}
        results["cold"] = asyncio.run(load(url, fens, args.concurrency))
        results["server_memory_after_cold"] = resident_mib(process.pid)
        results["warm"] = asyncio.run(load(url, fens, args.concurrency))
        results["warm_4_pieces"] = asyncio.run(load(url, four, args.concurrency)) if four else None
        results["bad_input"] = asyncio.run(bad_input(url, 20))
        results["idle"] = asyncio.run(idle_connections(url, args.idle, fens[:500], args.concurrency))
        results["server_memory_after_idle"] = resident_mib(process.pid)
        # Again: memory must stay where it is (bounded caches, connections given back).
        results["idle_again"] = asyncio.run(idle_connections(url, args.idle, fens[:500], args.concurrency))
        results["server_memory_end"] = resident_mib(process.pid)
        results["server_alive"] = process.poll() is None
    finally:
        process.terminate()
        process.wait(30)
    results["reference_python_chess_syzygy_4_pieces"] = python_chess_reference(
        four, oracle_data() / "chess" / "syzygy")
    results["settings"] = {"requests": args.requests, "concurrency": args.concurrency,
                           "cache_mb": args.cache_mb, "cpus": os.cpu_count()}
    print(json.dumps(results, indent=2))
    reference = results["reference_python_chess_syzygy_4_pieces"]
    if reference and results["warm_4_pieces"]:
        print(f"4-piece answers/s: ours over HTTP {results['warm_4_pieces']['requests_per_second']}, "
              f"python-chess Syzygy in process {reference['answers_per_second']} "
              f"(ratio {results['warm_4_pieces']['requests_per_second'] / reference['answers_per_second']:.2f})")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
