"""`solver serve`: the tables and the prover over HTTP (the Lichess tablebase API and a page)."""
from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import resource
import sys
import tempfile
from pathlib import Path

from solver.commands.build import add_db_argument, database_root
from solver.commands.common import Failure, megabytes, named_directory
from solver.errors import UsageError

DEFAULT_BIND = "127.0.0.1:9000"  # lila-tablebase's default


def register(subparsers) -> None:
    """Add the serve subcommand."""
    parser = subparsers.add_parser(
        "serve", help="serve the tables and the prover over HTTP, with a board in the browser",
        description="An HTTP server on the built tables. GET /standard?fen=FEN answers like "
        "the Lichess tablebase API (tablebase.lichess.ovh): category, dtz, precise_dtz, dtm and "
        "every legal move best first (underscores may stand for the FEN's spaces). "
        "GET /connect4?moves=4453 and /tictactoe?position=x...o.... give a position's value and "
        "its moves' values (tables, else df-pn within &seconds=, default 2); GET "
        "/prove?game=&position=&goal=win&seconds= runs df-pn and links the proof file (check it "
        "with `solver check-proof`). GET / is a page with a board to set up and play on.",
        epilog="Errors are one line of text: 400 for a bad query, 404 for an unknown path, 503 "
        "when too many requests wait. Ctrl-C stops the server (exit status 130).")
    add_db_argument(parser)
    parser.add_argument("--bind", metavar="HOST:PORT", default=DEFAULT_BIND,
                        help=f"address to listen on (default {DEFAULT_BIND}; port 0 picks a free "
                        "one, printed at start)")
    parser.add_argument("--cache-mb", type=megabytes, default=64.0, metavar="MB",
                        help="page cache of the tables, per metric (default 64)")
    parser.add_argument("--table-mb", type=megabytes, default=64.0, metavar="MB",
                        help="df-pn transposition table of each game (default 64)")
    parser.add_argument("--proof-dir", metavar="DIR", default=None,
                        help="where /prove keeps its proof files, at most 256 MiB of them, "
                        "oldest removed first (default: a temporary directory removed at exit)")
    parser.add_argument("--access-log", action="store_true",
                        help="log every request on stderr")
    parser.set_defaults(run=run)


def parse_bind(text: str) -> tuple[str, int]:
    """HOST:PORT (or :PORT, or PORT) as (host, port); a UsageError otherwise."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--bind {text[:60]!r}: expected HOST:PORT with a port 0-65535")
    return host, int(port)


def raise_open_file_limit() -> None:
    """Allow as many open connections as the system lets this process have."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY:
            hard = 1 << 16
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or SIGTERM."""
    host, port = parse_bind(args.bind)
    db = database_root(args.db)
    raise_open_file_limit()
    logging.basicConfig(level=logging.INFO, format="solver serve: %(message)s", stream=sys.stderr)
    if not args.access_log:
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    if not (db / "chess").is_dir():
        logging.getLogger("solver.serve").warning(
            "warning: no chess tables under %s: every chess position is 'unknown' (solver build "
            "chess --pieces 4)", db)
    with tempfile.TemporaryDirectory(prefix="solver-proofs-") as temporary:
        proof_dir = named_directory(args.proof_dir, "--proof-dir") if args.proof_dir is not None \
            else Path(temporary)
        try:
            proof_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise Failure(f"--proof-dir {args.proof_dir}: {error.strerror}") from None
        from solver.serve.app import ServeSettings

        settings = ServeSettings(db=db, proof_dir=proof_dir, cache_bytes=int(args.cache_mb * 2**20),
                                 table_mb=args.table_mb)
        asyncio.run(serve(settings, host, port, args.access_log))
    return 0


async def serve(settings, host: str, port: int, access_log: bool) -> None:
    """Listen, say where, load the probe's kernels, and serve until cancelled."""
    from aiohttp import web

    from solver.serve.app import make_app, warm_up

    app = make_app(settings)
    runner = web.AppRunner(app, access_log=logging.getLogger("aiohttp.access") if access_log else None,
                           handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, backlog=1024)
        try:
            await site.start()
        except OSError as error:
            reason = "address in use" if error.errno == errno.EADDRINUSE else (error.strerror or str(error))
            raise Failure(f"cannot listen on {host}:{port}: {reason}") from None
        bound = site._server.sockets[0].getsockname()  # the real port when 0 was asked
        shown_host = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        print(f"solver serve: http://{shown_host}:{bound[1]}/ (tables under {settings.db}; Ctrl-C stops)",
              flush=True)
        await warm_up(app)
        print("solver serve: ready", flush=True)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
