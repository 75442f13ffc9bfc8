// The live leaderboard: whenever /api/events says a game was stored, the board and the
// newest games are redrawn from /api/leaderboard (text only: names are never markup).
"use strict";
(function () {
  const fmt = (x) => Number(x).toFixed(2);
  function cell(row, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }
  function link(href, text) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }
  function draw(data) {
    const body = document.querySelector("#board tbody");
    body.replaceChildren();
    for (const s of data.leaderboard) {
      const tr = document.createElement("tr");
      cell(tr, String(s.rank));
      const name = cell(tr, "");
      name.appendChild(link("/entry/" + encodeURIComponent(s.entry), s.entry));
      cell(tr, s.sha256.slice(0, 8), "hash");
      cell(tr, String(s.games));
      cell(tr, fmt(s.mu));
      cell(tr, fmt(s.sigma));
      cell(tr, fmt(s.conservative));
      cell(tr, fmt(s.mean_score));
      body.appendChild(tr);
    }
    const last = document.getElementById("last-game");
    last.textContent = String(data.last_game);
    last.href = "/game/" + data.last_game;
    const recent = document.getElementById("recent");
    recent.replaceChildren();
    for (const g of data.recent) {
      const li = document.createElement("li");
      li.appendChild(link("/game/" + g.id, "game " + g.id));
      const what = g.status === "played"
        ? g.seats.map((s) => s.entry + " " + s.score).join(", ")
        : "lost: " + g.reason;
      li.appendChild(document.createTextNode(": " + what));
      recent.appendChild(li);
    }
    body.classList.remove("flash");
    void body.offsetWidth;
    body.classList.add("flash");
    window.arenaUpdates = (window.arenaUpdates || 0) + 1;
  }
  let shown = Number(document.getElementById("last-game").textContent);
  async function refresh() {
    const r = await fetch("/api/leaderboard", { cache: "no-store" });
    if (r.ok) draw(await r.json());
  }
  const state = document.getElementById("live-state");
  const events = new EventSource("/api/events");
  events.addEventListener("game", (e) => {
    const id = Number(e.data);
    state.textContent = "(live)";
    if (id !== shown) {
      shown = id;
      refresh();
    }
  });
  events.onerror = () => { state.textContent = "(reconnecting...)"; };
})();
