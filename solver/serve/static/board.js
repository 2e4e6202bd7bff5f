// The page of `solver serve`: a board for chess, Connect Four and tic-tac-toe, its moves with
// their values from the server's JSON. Plain DOM, no libraries: the server knows the rules
// (legal moves come from its answer, the position after a move from /play).
"use strict";

const START = {
  chess: "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1",
  connect4: "",
  tictactoe: ".........",
};
const LABEL = { chess: "FEN", connect4: "moves", tictactoe: "cells" };
const OPPOSITE = {
  "loss": "win", "win": "loss", "unknown": "unknown", "draw": "draw",
  "blessed-loss": "cursed-win", "cursed-win": "blessed-loss",
  "maybe-loss": "maybe-win", "maybe-win": "maybe-loss",
  "syzygy-loss": "syzygy-win", "syzygy-win": "syzygy-loss",
};
const GLYPH = {
  K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
  k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f",
};

const state = { game: "chess", position: START.chess, history: [], flipped: false,
                answer: null, selected: null, request: 0, shown: null,
                editing: false, brush: "Q" };
const $ = (id) => document.getElementById(id);

function endpoint(game, position) {
  const seconds = $("seconds").value;
  if (game === "chess") return `/standard?fen=${encodeURIComponent(position)}`;
  if (game === "connect4") return `/connect4?moves=${encodeURIComponent(position)}&seconds=${seconds}`;
  return `/tictactoe?position=${encodeURIComponent(position)}&seconds=${seconds}`;
}

async function fetchText(url) {
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(text.trim() || `HTTP ${response.status}`);
  return text;
}

async function load() {
  const request = ++state.request;
  const url = endpoint(state.game, state.position);
  $("json-link").href = url;
  $("position").value = state.position;
  $("summary").textContent = "thinking…";
  $("error").textContent = "";
  try {
    const answer = JSON.parse(await fetchText(url));
    if (request !== state.request) return;  // a newer position was asked for meanwhile
    state.answer = answer;
    state.shown = state.position;
    state.selected = null;
    render();
    loadMainline(request);
  } catch (error) {
    if (request !== state.request) return;
    $("error").textContent = error.message;
    // The board stays on the last position shown (or the game's start), never an empty one;
    // the text typed stays in the box to be corrected.
    const typed = $("position").value;
    if (state.history.length && state.history[state.history.length - 1] === state.shown) {
      state.history.pop();
    }
    if (state.shown === null) {
      state.position = START[state.game];
      state.answer = null;
      renderBoard();
      $("summary").textContent = "";
    } else {
      state.position = state.shown;
      render();
    }
    $("position").value = typed;
  }
}

async function loadMainline(request) {
  // chess: the DTZ mainline, where a table holds the position (404 elsewhere: no line)
  const line = $("mainline");
  line.textContent = "";
  if (state.game !== "chess" || !["win", "loss", "cursed-win", "blessed-loss"].includes(state.answer.category)) return;
  try {
    const answer = JSON.parse(await fetchText(`/standard/mainline?fen=${encodeURIComponent(state.position)}`));
    if (request !== state.request || !answer.mainline.length) return;
    const winner = answer.winner === "w" ? "White mates" : answer.winner === "b" ? "Black mates" : "the count runs out";
    line.textContent = `DTZ mainline: ${answer.mainline.map((step) => step.san).join(" ")} (${winner})`;
  } catch (error) {
    // no mainline: the table's moves are still shown
  }
}

async function playMove(move) {
  let next;
  if (state.game === "chess") {
    const url = `/play?game=chess&position=${encodeURIComponent(state.position)}&move=${move.uci}`;
    next = JSON.parse(await fetchText(url)).position;
  } else if (state.game === "connect4") {
    next = state.position + move.move;  // keep the order played (the server may give another)
  } else {
    next = move.position;
  }
  state.history.push(state.position);
  state.position = next;
  await load();
}

function moversDistance(distance) {
  return distance === undefined || distance === null ? "" : String(-distance || 0);
}

function moveName(move) { return state.game === "chess" ? move.san : move.move; }

function render() {
  const answer = state.answer;
  renderBoard();
  const sideToMove = state.game === "chess"
    ? (state.position.split(" ")[1] === "b" ? "Black" : "White")
    : "Side to move";
  const parts = [`${sideToMove}: ${answer.category}`];
  if (answer.dtz !== undefined && answer.dtz !== null) parts.push(`DTZ ${answer.dtz}`);
  if (answer.dtm !== undefined && answer.dtm !== null && answer.category !== "draw") parts.push(`DTM ${answer.dtm}`);
  if (answer.checkmate) parts.push("checkmate");
  if (answer.stalemate) parts.push("stalemate");
  if (answer.game_over) parts.push("game over");
  $("summary").textContent = parts.join(", ");
  $("summary").className = answer.category;
  $("dtz-head").hidden = state.game !== "chess";
  const body = $("moves").tBodies[0];
  body.replaceChildren();
  for (const move of answer.moves) {
    const row = body.insertRow();
    row.dataset.move = state.game === "chess" ? move.uci : move.move;
    const result = OPPOSITE[move.category];
    row.insertCell().textContent = moveName(move);
    const cell = row.insertCell();
    cell.textContent = result;
    cell.className = result;
    // the answer gives each move's distances from the side to move after it: the mover's
    // are the same with the other sign, as its result is the other side's
    const dtz = row.insertCell();
    dtz.textContent = moversDistance(move.dtz);
    dtz.hidden = state.game !== "chess";
    row.insertCell().textContent = moversDistance(move.dtm);
    row.addEventListener("click", () => playMove(move));
  }
}

function renderBoard() {
  const board = $("board");
  board.replaceChildren();
  if (state.game === "chess") renderChess(board);
  else if (state.game === "connect4") renderConnect4(board);
  else renderTicTacToe(board);
}

function chessSquares(fen) {
  const squares = {};
  fen.split(" ")[0].split("/").forEach((rank, row) => {
    let file = 0;
    for (const c of rank) {
      if (/\d/.test(c)) { file += Number(c); continue; }
      squares["abcdefgh"[file] + (8 - row)] = c;
      file += 1;
    }
  });
  return squares;
}

function renderChess(board) {
  board.style.gridTemplateColumns = "repeat(8, 52px)";
  const pieces = chessSquares(state.position);
  const moves = state.answer ? state.answer.moves : [];
  const targets = new Set(moves.filter((m) => m.uci.slice(0, 2) === state.selected).map((m) => m.uci.slice(2, 4)));
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = state.flipped ? 7 - col : col;
      const rank = state.flipped ? row + 1 : 8 - row;
      const name = "abcdefgh"[file] + rank;
      const square = document.createElement("div");
      square.className = `square ${(file + rank) % 2 ? "light" : "dark"}`;
      if (name === state.selected) square.classList.add("from");
      if (targets.has(name)) square.classList.add("target");
      square.dataset.square = name;
      if (pieces[name]) {
        const piece = document.createElement("span");
        piece.className = "piece";
        piece.textContent = GLYPH[pieces[name]];
        square.appendChild(piece);
      }
      if (col === 0) square.appendChild(coordinate("rank", String(rank)));
      if (row === 7) square.appendChild(coordinate("file", "abcdefgh"[file]));
      square.addEventListener("click", () => clickSquare(name));
      board.appendChild(square);
    }
  }
}

function coordinate(kind, text) {
  const label = document.createElement("span");
  label.className = `coord ${kind}`;
  label.textContent = text;
  return label;
}

function clickSquare(name) {
  if (state.editing) { placePiece(name); return; }
  const moves = state.answer ? state.answer.moves : [];
  if (state.selected) {
    // A promotion has four moves to the same square: the queen's comes first.
    const chosen = moves.filter((m) => m.uci.slice(0, 4) === state.selected + name)
      .sort((a, b) => (b.uci[4] === "q") - (a.uci[4] === "q"))[0];
    if (chosen) { playMove(chosen); return; }
  }
  state.selected = moves.some((m) => m.uci.slice(0, 2) === name) ? name : null;
  renderBoard();
}

// --- setting up a chess position by placing pieces -----------------------------------------
function placementFen(pieces) {
  let fen = "";
  for (let rank = 8; rank >= 1; rank--) {
    let empty = 0;
    for (const file of "abcdefgh") {
      const piece = pieces[file + rank];
      if (!piece) { empty += 1; continue; }
      if (empty) { fen += empty; empty = 0; }
      fen += piece;
    }
    if (empty) fen += empty;
    if (rank > 1) fen += "/";
  }
  return fen;
}

function placePiece(name) {
  const pieces = chessSquares(state.position);
  if (state.brush === "x" || pieces[name] === state.brush) delete pieces[name];
  else pieces[name] = state.brush;
  // the side to move stays; castling and en passant go (the tables hold neither)
  state.position = `${placementFen(pieces)} ${$("side").value} - - 0 1`;
  $("position").value = state.position;
  renderBoard();
}

function startEditing() {
  state.editing = !state.editing;
  $("edit").textContent = state.editing ? "Done" : "Edit";
  $("palette").hidden = !state.editing;
  state.selected = null;
  if (state.editing) {
    $("side").value = state.position.split(" ")[1] === "b" ? "b" : "w";
    renderBoard();
  } else {
    state.history.push(state.shown ?? START.chess);
    state.position = `${state.position.split(" ")[0]} ${$("side").value} - - 0 1`;
    load();
  }
}

function renderPalette() {
  const palette = $("pieces");
  for (const piece of ["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "x"]) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = piece;
    button.textContent = piece === "x" ? "\u2716" : GLYPH[piece];
    button.title = piece === "x" ? "remove pieces" : `place ${piece === piece.toUpperCase() ? "white" : "black"} ${piece}`;
    button.classList.toggle("selected", piece === state.brush);
    button.addEventListener("click", () => {
      state.brush = piece;
      for (const other of palette.children) other.classList.toggle("selected", other === button);
    });
    palette.appendChild(button);
  }
}

function renderConnect4(board) {
  const width = 7, height = 6;
  board.style.gridTemplateColumns = `repeat(${width}, 52px)`;
  const heights = new Array(width).fill(0);
  const grid = {};
  [...state.position].forEach((c, ply) => {
    const column = Number(c) - 1;
    grid[`${column},${heights[column]}`] = ply % 2 ? "o" : "x";
    heights[column] += 1;
  });
  for (let row = height - 1; row >= 0; row--) {
    for (let column = 0; column < width; column++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.column = String(column + 1);
      const disc = document.createElement("div");
      disc.className = `disc ${grid[`${column},${row}`] || ""}`;
      cell.appendChild(disc);
      cell.addEventListener("click", () => clickMove(String(column + 1)));
      board.appendChild(cell);
    }
  }
}

function renderTicTacToe(board) {
  board.style.gridTemplateColumns = "repeat(3, 80px)";
  [...state.position].forEach((c, index) => {
    const cell = document.createElement("div");
    cell.className = "ttt";
    cell.dataset.cell = String(index + 1);
    cell.textContent = c === "." ? "" : c;
    cell.addEventListener("click", () => clickMove(String(index + 1)));
    board.appendChild(cell);
  });
}

function clickMove(name) {
  const move = state.answer && state.answer.moves.find((m) => m.move === name);
  if (move) playMove(move);
}

function selectGame(game) {
  state.game = game;
  state.position = START[game];
  state.history = [];
  for (const button of document.querySelectorAll("#games button")) {
    button.classList.toggle("selected", button.dataset.game === game);
  }
  $("position-label").textContent = LABEL[game];
  state.shown = null;
  state.answer = null;
  for (const legend of document.querySelectorAll(".legend")) legend.hidden = legend.dataset.game !== (game === "chess" ? "chess" : "solved");
  $("edit").hidden = game !== "chess";
  $("mainline").textContent = "";
  $("seconds-label").hidden = game === "chess";
  $("flip").hidden = game !== "chess";
  load();
}

function init() {
  for (const button of document.querySelectorAll("#games button")) {
    button.addEventListener("click", () => selectGame(button.dataset.game));
  }
  $("back").addEventListener("click", () => {
    if (state.history.length) { state.position = state.history.pop(); load(); }
  });
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; renderBoard(); });
  $("edit").addEventListener("click", startEditing);
  $("clear").addEventListener("click", () => {
    state.position = `${placementFen({})} ${$("side").value} - - 0 1`;
    renderBoard();
  });
  renderPalette();
  $("start").addEventListener("click", () => selectGame(state.game));
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    state.history.push(state.position);
    state.position = $("position").value.trim();
    load();
  });
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  selectGame(START[game] !== undefined ? game : "chess");
  if (params.get("position") !== null) { state.position = params.get("position"); load(); }
}

init();
