"""The web application of ``solver serve`` (aiohttp).

One process, one event loop. Table probes run in one worker thread (the page cache and open
files are not shared between threads, and a cold page costs a disk read and a decompression
that must not hold up the loop); proofs and Connect Four / tic-tac-toe values run in another,
within a time budget each. Each worker has a bounded queue: past it a request gets 503 at once
instead of waiting without end. Every error is one line of text with its HTTP status.
"""
from __future__ import annotations

import asyncio
import logging
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from runtime.text import is_ascii_number
from solver.serve.solved_games import BadRequest, ProofStore, SolvedGame, prove
from solver.serve.tablebase import BadPosition, ChessTablebase, NotCovered, parse_fen

log = logging.getLogger("solver.serve")

MAX_QUEUED = 256  # requests waiting for a worker before the next gets 503
MAX_SECONDS = 30.0  # the longest a /prove or game request may ask to think
DEFAULT_SECONDS = {"prove": 2.0, "connect4": 2.0, "tictactoe": 1.0}
GAMES = ("chess", "connect4", "tictactoe")
GOALS = ("win", "draw")


@dataclass
class ServeSettings:
    """What ``solver serve`` was started with."""
    db: Path  # the database directory (holding chess/, tictactoe/; those missing are unknown)
    proof_dir: Path
    cache_bytes: int = 64 << 20
    table_mb: float = 64.0  # each game's df-pn transposition table
    proof_bytes: int = 256 << 20


class Worker:
    """One thread with a bounded queue."""

    def __init__(self, name: str, max_queued: int = MAX_QUEUED):
        self.pool = ThreadPoolExecutor(1, thread_name_prefix=name)
        self.queued = 0
        self.max_queued = max_queued

    async def run(self, work, *args):
        """``work(*args)`` in the worker thread; 503 when too many wait already."""
        if self.queued >= self.max_queued:
            raise web.HTTPServiceUnavailable(text="busy: too many requests waiting, try again\n")
        self.queued += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, work, *args)
        finally:
            self.queued -= 1

    def close(self) -> None:
        """Let the thread finish what it runs; drop what waits."""
        self.pool.shutdown(wait=False, cancel_futures=True)


class Services:
    """The tables, the prover and the workers, opened once for the life of the server."""

    def __init__(self, settings: ServeSettings):
        self.settings = settings
        self.probe_worker = Worker("probe")
        self.solve_worker = Worker("solve", max_queued=16)
        self.proofs = ProofStore(settings.proof_dir, settings.proof_bytes)
        self._chess: ChessTablebase | None = None
        self._solved: dict[str, SolvedGame] = {}
        self._searches: dict[str, object] = {}
        self._lock = threading.Lock()

    # Everything below runs in the worker threads.
    def chess(self) -> ChessTablebase:
        """The chess tablebase (opened on first use, in the probe thread)."""
        if self._chess is None:
            from databases.reader import Database

            self._chess = ChessTablebase(Database(self.settings.db, "chess", self.settings.cache_bytes),
                                         warn=log.warning)
        return self._chess

    def search(self, game_name: str):
        """The df-pn search of a game, with the game's tables as leaves where built."""
        with self._lock:
            search = self._searches.get(game_name)
            if search is None:
                import games
                from proofsearch.dfpn import DfpnSearch
                from proofsearch.table import TranspositionTable

                game = games.get(game_name)
                search = DfpnSearch(game, TranspositionTable.from_megabytes(self.settings.table_mb),
                                    database=self.leaves(game))
                self._searches[game_name] = search
            return search

    def leaves(self, game):
        """The game's built tables as df-pn leaves, or None."""
        from databases.errors import DatabaseError
        from databases.leaves import DatabaseLeaves

        try:
            leaves = DatabaseLeaves(game, self.settings.db / game.name, warn=log.warning)
        except (DatabaseError, LookupError):
            return None
        return leaves if leaves.tables else None

    def solved(self, game_name: str) -> SolvedGame:
        """Values of a game's positions (tables, then the prover)."""
        solved = self._solved.get(game_name)
        if solved is None:
            import games

            game = games.get(game_name)
            solved = SolvedGame(game, self.table_database(game_name), self.search(game_name))
            self._solved[game_name] = solved
        return solved

    def table_database(self, game_name: str):
        """The game's rule tables as a Database, None where the game has none built."""
        if not (self.settings.db / game_name).is_dir():
            return None
        from databases.families import family_names
        from databases.reader import Database

        if game_name not in family_names():
            return None
        return Database(self.settings.db, game_name, self.settings.cache_bytes)

    def stop(self) -> None:
        """Stop running proofs; let the workers go."""
        for search in list(self._searches.values()):
            search.stop()
        self.probe_worker.close()
        self.solve_worker.close()


SERVICES = web.AppKey("services", Services)


def one_line(status: type[web.HTTPException], message: str) -> web.HTTPException:
    """An HTTP error whose body is one line of text."""
    return status(text=" ".join(str(message).split())[:500] + "\n")


def query(request: web.Request, name: str, default: str | None = None) -> str:
    """A query parameter, or 400 naming it."""
    value = request.query.get(name, default)
    if value is None:
        raise one_line(web.HTTPBadRequest, f"missing query parameter: {name}")
    return value


async def answer_or_400(worker: Worker, work):
    """``work()`` in ``worker``; its BadRequest as a 400 with one line."""
    try:
        return await worker.run(work)
    except BadRequest as error:
        raise one_line(web.HTTPBadRequest, str(error)) from None


def seconds_parameter(request: web.Request, default: float) -> float:
    """The ``seconds`` budget of a request, within (0, MAX_SECONDS]."""
    text = request.query.get("seconds")
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise one_line(web.HTTPBadRequest, f"seconds must be a number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_SECONDS:
        raise one_line(web.HTTPBadRequest, f"seconds must be in (0, {MAX_SECONDS:g}]")
    return value


async def standard(request: web.Request) -> web.Response:
    """``GET /standard?fen=``: the Lichess tablebase API."""
    services = request.app[SERVICES]
    try:
        board = parse_fen(query(request, "fen"))
    except BadPosition as error:
        raise one_line(web.HTTPBadRequest, str(error)) from None
    answer = await services.probe_worker.run(lambda: services.chess().answer(board))
    return web.json_response(answer)


async def standard_mainline(request: web.Request) -> web.Response:
    """``GET /standard/mainline?fen=``: the DTZ mainline, as lila-tablebase's; 404 where no
    table holds the position."""
    services = request.app[SERVICES]
    try:
        board = parse_fen(query(request, "fen"))
    except BadPosition as error:
        raise one_line(web.HTTPBadRequest, str(error)) from None
    try:
        answer = await services.probe_worker.run(lambda: services.chess().mainline(board))
    except NotCovered as error:
        raise one_line(web.HTTPNotFound, str(error)) from None
    return web.json_response(answer)


async def solved_game(request: web.Request, game_name: str, parameter: str) -> web.Response:
    """``/connect4?moves=`` and ``/tictactoe?position=``."""
    services = request.app[SERVICES]
    text = query(request, parameter, "")
    seconds = seconds_parameter(request, DEFAULT_SECONDS[game_name])

    def work():
        solved = services.solved(game_name)
        return solved.answer(solved.parse(text), seconds)

    return web.json_response(await answer_or_400(services.solve_worker, work))


async def connect4(request: web.Request) -> web.Response:
    """``GET /connect4?moves=4453``: columns played from the empty board."""
    return await solved_game(request, "connect4", "moves")


async def tictactoe(request: web.Request) -> web.Response:
    """``GET /tictactoe?position=x...o....``: nine cells row by row."""
    return await solved_game(request, "tictactoe", "position")


async def prove_handler(request: web.Request) -> web.Response:
    """``GET /prove?game=&position=&goal=win&seconds=2&max_depth=``: df-pn within the budget,
    with a link to the proof file when one is found."""
    services = request.app[SERVICES]
    game_name = query(request, "game")
    if game_name not in GAMES:
        raise one_line(web.HTTPBadRequest, f"game must be one of {', '.join(GAMES)}")
    text = query(request, "position", "startpos")
    goal = query(request, "goal", "win")
    if goal not in GOALS:
        raise one_line(web.HTTPBadRequest, "goal must be win or draw")
    seconds = seconds_parameter(request, DEFAULT_SECONDS["prove"])
    max_depth = None
    if "max_depth" in request.query:
        depth = request.query["max_depth"]
        if not is_ascii_number(depth) or int(depth) > 100_000:
            raise one_line(web.HTTPBadRequest, "max_depth must be a whole number of plies up to 100000")
        max_depth = int(depth)

    def work():
        solved = services.solved(game_name)
        position = solved.parse(text.replace("_", " ") if game_name == "chess" else text)
        search = services.search(game_name)
        leaves = search.database
        return prove(search, solved.game, position, text, goal, seconds, max_depth,
                     services.proofs, leaves.value if leaves is not None else None)

    return web.json_response(await answer_or_400(services.solve_worker, work))


async def proof_file(request: web.Request) -> web.StreamResponse:
    """``GET /proofs/NAME``: a proof written by ``/prove``."""
    path = request.app[SERVICES].proofs.path(request.match_info["name"])
    if path is None:
        raise one_line(web.HTTPNotFound, "no such proof (proofs are kept while there is room)")
    return web.FileResponse(path, headers={"Content-Type": "application/json"})


async def play(request: web.Request) -> web.Response:
    """``GET /play?game=&position=&move=``: the position after a move (for the page)."""
    game_name = query(request, "game")
    if game_name not in GAMES:
        raise one_line(web.HTTPBadRequest, f"game must be one of {', '.join(GAMES)}")
    text, move_text = query(request, "position", "startpos"), query(request, "move")
    import games

    def work():  # in the probe thread: the game's kernels may still have to load
        game = games.get(game_name)
        try:
            if len(text) > 255 or len(move_text) > 16:
                raise games.NotationError("too long")
            position = game.parse_position((text.replace("_", " ") if game_name == "chess" else text)
                                           or "startpos")
            child = game.play(position, game.parse_move(position, move_text))
        except games.NotationError as error:
            raise BadRequest(f"bad {game_name} position or move: {error}") from None
        return game.format_position(child)

    after = await answer_or_400(request.app[SERVICES].probe_worker, work)
    return web.json_response({"game": game_name, "position": after})


async def status(request: web.Request) -> web.Response:
    """``GET /status``: what the server holds and how busy it is."""
    services = request.app[SERVICES]
    return web.json_response({
        "db": Path(services.settings.db).name,  # the name only: clients see no server paths
        "queued": {"probe": services.probe_worker.queued, "solve": services.solve_worker.queued},
    })


def static_file(name: str):
    """A handler for one of the page's files."""
    async def handler(request: web.Request) -> web.Response:
        body = resources.files("solver.serve").joinpath("static", name).read_bytes()
        kind = {"html": "text/html", "js": "text/javascript", "css": "text/css"}[name.rsplit(".", 1)[1]]
        return web.Response(body=body, content_type=kind, charset="utf-8")
    return handler


@web.middleware
async def one_line_errors(request: web.Request, handler):
    """Unexpected failures become one line and status 500; the server goes on."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except asyncio.CancelledError:
        raise
    except Exception as error:  # noqa: BLE001 - the server must keep serving
        log.exception("internal error on %s", request.path_qs[:200])
        raise one_line(web.HTTPInternalServerError,
                       f"internal error: {type(error).__name__}: {error}") from None


class MalformedRequestInOneLine(logging.Filter):
    """aiohttp logs a request it cannot parse (a request line too long, a bad header) with a
    traceback; the client's error, already answered 400, needs one line in the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            record.msg, record.args = "a malformed request answered %s: %s", (error.code, error.message)
            record.exc_info, record.exc_text = None, None
        return True


def make_app(settings: ServeSettings) -> web.Application:
    """The application: routes, services, and their clean-up."""
    server_log = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, MalformedRequestInOneLine) for f in server_log.filters):
        server_log.addFilter(MalformedRequestInOneLine())
    app = web.Application(middlewares=[one_line_errors], client_max_size=4096)
    services = Services(settings)
    app[SERVICES] = services
    app.router.add_get("/", static_file("index.html"))
    for name in ("board.js", "style.css"):
        app.router.add_get(f"/static/{name}", static_file(name))
    app.router.add_get("/standard", standard)
    app.router.add_get("/standard/mainline", standard_mainline)
    app.router.add_get("/connect4", connect4)
    app.router.add_get("/tictactoe", tictactoe)
    app.router.add_get("/prove", prove_handler)
    app.router.add_get("/proofs/{name}", proof_file)
    app.router.add_get("/play", play)
    app.router.add_get("/status", status)

    async def stop_services(app: web.Application) -> None:
        services.stop()

    app.on_shutdown.append(stop_services)
    return app


async def warm_up(app: web.Application) -> None:
    """Load the kernels before the first request asks for them (a cold compile takes seconds,
    later starts read numba's cache): one chess answer in the probe thread, one small value of
    each game the prover serves in the solve thread."""
    services = app[SERVICES]
    board = parse_fen("4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    chess_ready = services.probe_worker.run(lambda: services.chess().answer(board))

    def warm_solved_games():
        for game_name, position in (("tictactoe", "xx.oo...."), ("connect4", "444444")):
            solved = services.solved(game_name)
            solved.answer(solved.parse(position), 0.5)

    await asyncio.gather(chess_ready, services.solve_worker.run(warm_solved_games))


@contextmanager
def serving_in_thread(settings: ServeSettings, host: str = "127.0.0.1", port: int = 0):
    """Run the application on its own event loop in a daemon thread (for tests, benchmarks and
    embedding); yields its base URL, ``http://HOST:PORT``, and stops it on exit."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(make_app(settings), handle_signals=False, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, host, port)
    loop.run_until_complete(site.start())
    bound = site._server.sockets[0].getsockname()
    thread = threading.Thread(target=loop.run_forever, name="solver-serve", daemon=True)
    thread.start()
    try:
        yield f"http://{bound[0]}:{bound[1]}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
