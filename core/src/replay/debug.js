// What the bots said, beside the board: the panel every game's replay page shares
// (host/src/replay/debug.js), put in place of the DEBUG_JS comment of its script.
//
// What it is: pick an entry (and one of its players or units, or all of them) and the
// panel shows what it said at the turn shown; "every text" lists all of the entry's
// texts by turn, each a link to its turn. The notes come with each page's data as
// `D.debug`: rows `[call, entry, turn, unit, text]` (`unit` null for none), in call order
// (`crate::debug`, docs/replays.md).
//
// What it is not: it knows no game. The page says where the panel goes, how a turn of
// the page matches a note (`at(note)`: the page's turn at which the note's call was
// made), what a unit is called, and how to go to a turn; it calls `show(turn)` whenever
// it draws a turn, and may call `pick(entry, unit)` (a click on the board).
//
// o: { notes, names, colours, el (the container), at(note) -> page turn, unitName
// ("player", "copy", "unit"), turnName ("turn"), label(page turn) -> its name (by default
// the number), go(turn) }.
// Returns { show(turn), pick(entry, unit) }, and keeps `window.debugView` up to date
// ({ entry, unit, shown: [texts at the turn shown] }) for tests and tools.
function debugPanel(o) {
  const escapeHtml = s => String(s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const notes = o.notes || [], el = o.el;
  const byEntry = o.names.map(() => []);
  for (const n of notes) if (n[1] < byEntry.length) byEntry[n[1]].push(n);
  const speakers = byEntry.map((list, i) => [i, list.length]).filter(([, k]) => k > 0);
  let entry = speakers.length ? speakers[0][0] : null, unit = null, turn = 0;
  const unitText = u => u === null ? "" : `${o.unitName} ${u}`;
  const label = t => o.label ? o.label(t) : String(t);
  if (!speakers.length) {
    el.innerHTML = `<div class="muted">No bot said anything in this game (a bot says something with ` +
      `<code>debug(...)</code>: docs/replays.md).</div>`;
    window.debugView = { entry: null, unit: null, shown: [] };
    return { show() {}, pick() {} };
  }
  el.innerHTML = `<div><b>What the bots said</b></div>
    <div class="dbg-pick"><select id="dbg-entry" title="whose texts"></select>
    <select id="dbg-unit" title="which ${o.unitName}"></select></div>
    <div id="dbg-now"></div>
    <details id="dbg-list"><summary id="dbg-sum"></summary><div id="dbg-all"></div></details>`;
  const entrySel = el.querySelector("#dbg-entry"), unitSel = el.querySelector("#dbg-unit");
  entrySel.innerHTML = speakers.map(([i, k]) =>
    `<option value="${i}">${escapeHtml(o.names[i])} (${k} text${k === 1 ? "" : "s"})</option>`).join("");
  function units() {
    const seen = [...new Set(byEntry[entry].map(n => n[3]).filter(u => u !== null))].sort((a, b) => a - b);
    unitSel.innerHTML = `<option value="">every ${o.unitName}</option>` +
      seen.map(u => `<option value="${u}">${escapeHtml(unitText(u))}</option>`).join("");
    unitSel.style.display = seen.length ? "" : "none";
    unitSel.value = unit === null ? "" : String(unit);
  }
  const mine = () => byEntry[entry].filter(n => unit === null || n[3] === unit);
  const line = n => `<div class="dbg-text"><span class="muted">${escapeHtml(unitText(n[3]))}</span>` +
    `<pre>${escapeHtml(n[4])}</pre></div>`;
  function listAll() {
    const list = mine();
    el.querySelector("#dbg-sum").textContent = `every text of ${o.names[entry]}${unit === null ? "" : ", " + unitText(unit)} (${list.length})`;
    el.querySelector("#dbg-all").innerHTML = list.map(n =>
      `<div class="dbg-row"><a class="dbg-go" role="link" tabindex="0" data-turn="${o.at(n)}">${o.turnName} ${label(o.at(n))}</a> ` +
      `<span class="muted">${escapeHtml(unitText(n[3]))}</span><pre>${escapeHtml(n[4])}</pre></div>`).join("");
  }
  function show(t) {
    turn = t;
    const now = mine().filter(n => o.at(n) === t);
    const swatch = `<span class="swatch" style="background:${o.colours[entry]}"></span>`;
    el.querySelector("#dbg-now").innerHTML = `<div class="muted">${swatch} ${escapeHtml(o.names[entry])} at ${o.turnName} ${label(t)}:</div>` +
      (now.length ? now.map(line).join("") : `<div class="muted">nothing said${unit === null ? "" : " by " + escapeHtml(unitText(unit))}</div>`);
    window.debugView = { entry, unit, shown: now.map(n => n[4]) };
  }
  function pick(e, u) {
    if (e === null || e >= byEntry.length || !byEntry[e].length) return;
    entry = e;
    unit = u === undefined ? null : u;
    entrySel.value = String(entry);
    units();
    if (unitSel.value === "" && unit !== null) unit = null;
    listAll();
    show(turn);
  }
  entrySel.onchange = () => pick(Number(entrySel.value), null);
  unitSel.onchange = () => pick(entry, unitSel.value === "" ? null : Number(unitSel.value));
  el.querySelector("#dbg-all").addEventListener("click", ev => {
    const a = ev.target.closest && ev.target.closest("a[data-turn]");
    if (a) { ev.preventDefault(); o.go(Number(a.dataset.turn)); }
  });
  pick(entry, null);
  return { show, pick };
}
