// The replay player shared by the zombies, eggs and target pages (host/src/replay/player.js).
//
// What it is: the playback of a page, written once: the turn shown, play / pause at the
// chosen speed, the previous / next buttons, the seek bar, the arrow keys and space, the
// address naming the turn (#t=N, followed when it changes), the board following the
// window and the tooltip box; and small helpers: escapeHtml, the cell size that fits, and
// the sampled lines chart of eggs and target. (The entries' colours come with each page's
// data, `D.colours`: the score plot's palette, `plot::entry_colours`.) Each
// game's viewer.rs puts this file, compiled into the binary, in place of the PLAYER_JS
// comment inside its page's one script, so the page stays a single self-contained file.
//
// What it is not: it knows no game. It does not read the replay data, keep a game's
// state, or draw its board, legend or events: the page moves its own state to a turn and
// draws it (`show`), sizes its own board (`fit`), and adds its own keys and controls. The
// hex page keeps its own playback (half-turns, every step in the address); it shares only
// the style (page.css).

function escapeHtml(s) {
  return s.replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// The board follows the window: the largest whole cell (at least `min`) for which `n`
// cells fit beside the side panel and below the controls.
function fitCell(board, n, min) {
  const side = document.getElementById("side");
  const w = window.innerWidth - 24 - 16 - Math.max(280, side.offsetWidth) - 4;
  const h = window.innerHeight - (board.getBoundingClientRect().top + window.scrollY) - 12;
  return Math.max(min, Math.floor(Math.min(w, h) / n));
}

// The eggs and target chart: one line per entry through `samples` ([turn, value of each
// entry], in turn order) from 0 to `peak`, over turns 0..=turns, with a line at the turn
// shown and the peak written in the corner. With `focus` (entry indices), those lines are
// drawn bold on top and the others faint, so that many entries stay readable.
function drawSampledChart(chart, cg, samples, colours, peak, turn, turns, focus) {
  const w = chart.width, h = chart.height, pad = 4;
  cg.fillStyle = "#fff";
  cg.fillRect(0, 0, w, h);
  const x = t => pad + (w - 2 * pad) * t / Math.max(1, turns), y = v => h - pad - (h - 2 * pad) * v / peak;
  const line = (i, width, alpha) => {
    cg.globalAlpha = alpha;
    cg.strokeStyle = colours[i];
    cg.lineWidth = width;
    cg.beginPath();
    samples.forEach(([t, s], k) => k === 0 ? cg.moveTo(x(t), y(s[i])) : cg.lineTo(x(t), y(s[i])));
    cg.stroke();
    cg.globalAlpha = 1;
  };
  const bold = focus || [];
  for (let i = 0; i < colours.length; i++) if (!bold.includes(i)) line(i, focus ? 1 : 1.5, focus ? 0.22 : 1);
  for (const i of bold) line(i, 2.5, 1);
  cg.strokeStyle = "#000";
  cg.lineWidth = 1;
  cg.beginPath();
  cg.moveTo(x(turn), 0);
  cg.lineTo(x(turn), h);
  cg.stroke();
  cg.fillStyle = "#666";
  cg.font = "11px system-ui, sans-serif";
  cg.textAlign = "left";
  cg.textBaseline = "top";
  cg.fillText(String(peak), pad + 2, pad);
}

// The player. `o`:
// - `turns`: the last turn (turns run 0..=turns);
// - `show(t)`: move the page's state to turn t and draw it (the player then records t);
// - `fit()`, `draw()`: size the board to the window, and draw the turn shown again;
// - `tipAt(ev)`: the tooltip text under the mouse on the board, or undefined for none;
// - `keys`: more keys, { key: action } (the arrows and space are the player's);
// - `buttonLike`: inputs that keep space, like buttons, but leave the other keys alone;
// - `plainKeys`: true to leave keys pressed with Ctrl, Alt or Meta to the browser.
// Returns { go(t), play(), pause(), start(), turn, playing }.
function replayPlayer(o) {
  const $ = id => document.getElementById(id);
  const seek = $("seek"), playButton = $("play"), tip = $("tip"), board = $("board");
  const buttonLike = o.buttonLike || [], keys = o.keys || {};
  let turn = 0, playing = null;

  // The address names the turn shown (#t=N); while playing it is updated a few times a second.
  let hashSet = 0;
  function setHash(force) {
    const now = Date.now();
    if (!force && now - hashSet < 500) return;
    hashSet = now;
    if (location.hash !== `#t=${turn}`) history.replaceState(null, "", `#t=${turn}`);
  }
  function go(t, force = true) {
    t = Math.max(0, Math.min(o.turns, t));
    o.show(t);
    turn = t;
    setHash(force);
  }
  function pause() {
    if (playing !== null) { clearInterval(playing); playing = null; setHash(true); }
    playButton.textContent = "Play";
  }
  function play() {
    pause();
    if (turn >= o.turns) go(0);
    const speed = Number($("speed").value);
    // At most 60 frames a second; faster speeds take several turns per frame.
    const per = Math.max(1, Math.round(speed / 60)), every = 1000 * per / speed;
    playing = setInterval(() => { if (turn >= o.turns) pause(); else go(turn + per, false); }, every);
    playButton.textContent = "Pause";
  }

  playButton.onclick = () => playing === null ? play() : pause();
  $("prev").onclick = () => { pause(); go(turn - 1); };
  $("next").onclick = () => { pause(); go(turn + 1); };
  $("speed").onchange = () => { if (playing !== null) play(); };
  seek.max = String(o.turns);
  seek.oninput = () => { pause(); go(Number(seek.value)); };
  document.addEventListener("keydown", ev => {
    // Keys meant for a control stay with it (space on a focused button clicks it once).
    const tag = ev.target && ev.target.tagName, own = buttonLike.includes(ev.target);
    if (tag === "SELECT" || (tag === "INPUT" && ev.target !== seek && !own) || ((tag === "BUTTON" || own) && ev.key === " ")) return;
    if (o.plainKeys && (ev.ctrlKey || ev.metaKey || ev.altKey)) return;
    if (ev.key === "ArrowRight") { pause(); go(turn + 1); }
    else if (ev.key === "ArrowLeft") { pause(); go(turn - 1); }
    else if (ev.key === " ") playing === null ? play() : pause();
    else if (Object.prototype.hasOwnProperty.call(keys, ev.key)) keys[ev.key]();
    else return;
    ev.preventDefault();
  });
  board.addEventListener("mousemove", ev => {
    const text = o.tipAt(ev);
    if (text === undefined) { tip.style.display = "none"; return; }
    tip.textContent = text;
    tip.style.left = (ev.clientX + 12) + "px";
    tip.style.top = (ev.clientY + 12) + "px";
    tip.style.display = "block";
  });
  board.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  let resizing = null;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => { o.fit(); o.draw(); }, 50); });
  // A link may name a turn: replay.html#t=120
  const linkedTurn = () => { const m = /^#t=(\d+)$/.exec(location.hash); return m ? Number(m[1]) : null; };
  window.addEventListener("hashchange", () => { const t = linkedTurn(); if (t !== null && t !== turn) { pause(); go(t); } });
  // Opens at the turn the address names, if any.
  function start() {
    $("last").textContent = String(o.turns);
    o.fit();
    const linked = linkedTurn();
    if (linked !== null) go(linked); else o.draw();
  }
  return { go, play, pause, start, get turn() { return turn; }, get playing() { return playing !== null; } };
}
