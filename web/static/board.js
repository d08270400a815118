// The scoreboard page: draws the board the service sends and follows it live.
// Live: server-sent events from /events (the browser reconnects by itself after a restart;
// when the service refuses a stream, 503 with too many viewers, it polls /api/board until a
// stream is free again). Everything is built with textContent: player names are typed by
// anyone at the bar and are never parsed as HTML.
"use strict";

const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
const POLL_MS = 5000;
let source = null;
let pollTimer = null;
let lastVersion = -1;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function byId(id) { return document.getElementById(id); }

function fill(node, children) { node.replaceChildren(...children); }

function format(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? String(values[key]) : ""));
}

function die(value, held) {
  const node = el("div", null, held ? "die held" : "die");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", String(value));
  node.dataset.value = String(value);
  const on = PIPS[value] || [];
  for (let i = 0; i < 9; i++) node.appendChild(el("span", null, on.includes(i) ? "pip on" : "pip"));
  return node;
}

function cellText(cell) {
  if (cell === null) return "";
  return cell.x ? "X" : String(cell.p);
}

function drawSheet(game, t) {
  const sheet = byId("sheet");
  const head = el("tr");
  head.appendChild(el("th", ""));
  game.players.forEach((name, p) => head.appendChild(el("th", name, p === game.current ? "turn" : "")));
  fill(sheet.tHead, [head]);
  const rows = game.categories.map((category, c) => {
    const row = el("tr");
    row.appendChild(el("td", category.name));
    game.sheet[c].forEach((cell, p) => {
      const classes = [p === game.current ? "turn" : "", cell && cell.x ? "x" : "", cell && cell.s ? "s" : ""];
      const td = el("td", cellText(cell), classes.filter(Boolean).join(" "));
      td.dataset.category = category.id;
      td.dataset.player = String(p);
      row.appendChild(td);
    });
    return row;
  });
  game.lines.forEach((line) => {
    const row = el("tr", null, "line");
    row.appendChild(el("td", line.name));
    line.values.forEach((value) => row.appendChild(el("td", value)));
    rows.push(row);
  });
  fill(sheet.tBodies[0], rows);
  const foot = el("tr");
  foot.appendChild(el("td", game.match ? t.rounds_won : t.total));
  game.totals.forEach((total, p) => {
    const td = el("td", total, p === game.current ? "turn" : "");
    td.dataset.total = String(p);
    foot.appendChild(td);
  });
  fill(sheet.tFoot, [foot]);
  const problem = byId("problem");
  problem.hidden = !game.problem;
  problem.textContent = game.problem ? t.problem + ": " + game.problem : "";
}

function drawStatus(board, game, t) {
  const status = byId("status");
  if (!game) { status.textContent = board.log ? t.waiting : t.no_log; return; }
  if (game.finished) {
    const who = game.winners.join(", ");
    status.textContent = t.finished + (who ? " · " + (game.winners.length > 1 ? t.winners : t.winner) + ": " + who : "")
      + (game.instant_win ? " · " + game.instant_win : "");
    return;
  }
  const parts = [t.to_throw + ": " + game.players[game.current]];
  if (game.throw > 0) parts.push(format(t.throw_of, { n: game.throw, m: game.max_throws }));
  parts.push(format(t.round, { n: game.round, m: game.rounds }));
  status.textContent = parts.join(" · ");
}

function drawThrow(game, t) {
  const last = game ? game.last_throw : null;
  byId("throw-title").textContent = last ? t.last_throw + ": " + last.player_name
    + (last.filled ? " → " + last.filled : "") : t.last_throw;
  fill(byId("dice"), last ? last.dice.map((value, i) => die(value, last.held.includes(i))) : []);
  const snapshot = byId("snapshot");
  if (last && last.snapshot) {
    if (snapshot.getAttribute("src") !== last.snapshot) snapshot.src = last.snapshot;
    snapshot.alt = t.snapshot;
    snapshot.hidden = false;
  } else {
    snapshot.hidden = true;
    snapshot.removeAttribute("src");
  }
  byId("options-title").textContent = t.options;
  const options = game ? game.options : [];
  if (!options.length) { fill(byId("options"), [el("li", game && !game.finished ? t.no_options : "")]); return; }
  fill(byId("options"), options.map((option) => {
    const li = el("li");
    const name = el("span", option.name);
    option.tags.forEach((tag) => name.appendChild(el("span", tag, "tag")));
    li.appendChild(name);
    li.appendChild(el("span", option.points, "pts"));
    li.dataset.category = option.category;
    return li;
  }));
}

function drawSettlement(game, t) {
  byId("settlement-title").textContent = t.settlement;
  const items = [];
  if (game && game.settlement) {
    game.settlement.lines.forEach((line) => items.push(el("li", line)));
    if (!game.settlement.final && game.settlement.lines.length) items.push(el("li", "(" + t.if_ended_now + ")", "provisional"));
  }
  fill(byId("settlement"), items);
  byId("money-box").hidden = !items.length;
}

function drawToday(board, t) {
  byId("today-title").textContent = t.today;
  if (!board.today.length) { fill(byId("today"), [el("li", t.none_today)]); return; }
  fill(byId("today"), board.today.map((game) => {
    const li = el("li");
    li.appendChild(el("span", game.game + ": "));
    li.appendChild(el("span", game.players.map((p, i) => p + " " + game.totals[i]).join(", ")));
    if (game.winners.length) li.appendChild(el("span", " · " + game.winners.join(", "), "who"));
    (game.settlement ? game.settlement.lines : []).forEach((line) => li.appendChild(el("div", line, "tag")));
    return li;
  }));
}

function drawFairness(board, t) {
  const box = byId("fairness-box");
  const fair = board.fairness;
  box.hidden = !fair;
  if (!fair) return;
  byId("fairness-title").textContent = t.fairness;
  const most = Math.max(1, ...fair.counts);
  fill(byId("faces"), fair.counts.map((count, i) => {
    const face = el("div", null, "face");
    const bar = el("div", null, "bar");
    bar.style.height = Math.round((count / most) * 70) + "%";
    face.appendChild(el("span", count));
    face.appendChild(bar);
    face.appendChild(el("span", i + 1));
    return face;
  }));
  byId("fairness-line").textContent = fair.line;
  const verdict = byId("fairness-verdict");
  verdict.textContent = fair.verdict;
  verdict.className = fair.warning ? "warn" : "";
}

function draw(board) {
  if (typeof board.v === "number") {
    if (board.v === lastVersion) return;
    lastVersion = board.v;
  }
  const t = board.t;
  const game = board.game;
  document.documentElement.lang = board.lang;
  document.title = (game ? game.game + " · " : "") + t.title;
  byId("game-name").textContent = game ? game.game : board.device;
  byId("offline").textContent = t.offline;
  drawStatus(board, game, t);
  byId("sheet-box").hidden = !game;
  if (game) drawSheet(game, t);
  drawThrow(game, t);
  drawSettlement(game, t);
  drawToday(board, t);
  drawFairness(board, t);
  document.body.dataset.version = String(board.v);
}

function poll() {
  fetch("/api/board", { cache: "no-store" })
    .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
    .then((board) => { byId("offline").hidden = true; draw(board); })
    .catch(() => { byId("offline").hidden = false; });
}

function connect() {
  if (source) source.close();
  source = new EventSource("/events");
  source.addEventListener("board", (event) => {
    byId("offline").hidden = true;
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
    draw(JSON.parse(event.data));
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (too many viewers) or not an event stream: poll, and try a stream again later.
      if (!pollTimer) { poll(); pollTimer = setInterval(poll, POLL_MS); }
      setTimeout(connect, POLL_MS * 2 + Math.random() * POLL_MS);
    } else {
      byId("offline").hidden = false;  // the browser reconnects by itself
    }
  });
}

document.addEventListener("DOMContentLoaded", connect);
