// engine serve: the page. Plain JavaScript, no build step, no network beyond this server.
// The server keeps the rules: the page draws its positions, sends the moves people click in
// the game's notation, and shows what the engine's search saw.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const COLOR = { 1: '#1a5fb4', 2: '#c01c28' };
const session = (() => {
  let id = sessionStorage.getItem('engine-session');
  if (!id) {
    id = 'tab-' + Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
    sessionStorage.setItem('engine-session', id);
  }
  return id;
})();
document.body.dataset.session = session;

let games = [];        // the registry, from /api/games
let state = null;      // the last state from the server
let selection = [];    // squares clicked so far (Amazons: from, to; Surakarta: from)
let arrows = null;     // Amazons: legal arrow squares after the selected queen move
let thinking = false;  // an engine request is on its way
let paused = false;    // a game between two engines waits
let pollTimer = null;
let liveThinking = null;
let lastDefault = '';

function setBusy(b) {
  thinking = b;
  document.body.dataset.busy = b ? '1' : '0';
}
setBusy(false);

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(Object.assign({ session }, body));
  }
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({ error: 'the server answered ' + res.status }));
  if (!res.ok) throw new Error(data.error || ('HTTP ' + res.status));
  return data;
}

function showError(e) {
  $('error').textContent = e ? String(e.message || e) : '';
}

// ---------- setup form ----------

// The engine a side gets by default: the game's strongest player (`best`), 1 s a move.
function defaultSpec(name) {
  if (name === 'amazons') {
    // The search's turn shape follows the game's, so that its visits fit the board's moves.
    const turn = $('param-turn');
    return 'best:time_ms=1000' + (turn && turn.value === 'whole' ? ',turn=whole' : '');
  }
  return 'best:time_ms=1000';
}

function gameEntry() {
  return games.find((g) => g.name === $('game').value);
}

function renderParams(values) {
  const g = gameEntry();
  const box = $('params');
  box.textContent = '';
  for (const p of g.params) {
    const label = document.createElement('label');
    label.textContent = p.name + ' ';
    let input;
    if (p.kind === 'int') {
      input = document.createElement('input');
      input.type = 'number';
      input.min = p.values.min;
      input.max = p.values.max;
    } else {
      input = document.createElement('select');
      for (const v of p.values) {
        const o = document.createElement('option');
        o.value = o.textContent = v;
        input.appendChild(o);
      }
    }
    input.id = 'param-' + p.name;
    input.addEventListener('change', () => {
      // A side still on the default engine follows a parameter that changes the default.
      const before = lastDefault;
      lastDefault = defaultSpec(g.name);
      for (const i of [1, 2]) if ($('p' + i + '-spec').value === before) $('p' + i + '-spec').value = lastDefault;
    });
    input.value = values && values[p.name] !== undefined ? values[p.name] : p.default;
    input.title = p.help;
    label.appendChild(input);
    box.appendChild(label);
  }
  $('b-dots').hidden = g.name !== 'dots_and_boxes';
  renderKinds(g);
  lastDefault = defaultSpec(g.name);
}

// The builder's player kinds: the game's own, as the registry declares them (`engine players`).
function renderKinds(g) {
  const select = $('b-kind');
  const before = select.value;
  select.textContent = '';
  for (const p of g.players || []) {
    if (p.kind === 'external') continue;
    const o = document.createElement('option');
    o.value = o.textContent = p.kind;
    o.title = p.about;
    select.appendChild(o);
  }
  // Left to itself the builder starts at the game's strongest player.
  if ([...select.options].some((o) => o.value === before)) select.value = before;
  else if ([...select.options].some((o) => o.value === 'best')) select.value = 'best';
  else if ([...select.options].some((o) => o.value === 'mcts')) select.value = 'mcts';
}

function builderSpec() {
  const kind = $('b-kind').value;
  const keys = [];
  const it = parseInt($('b-iterations').value, 10);
  const time = parseInt($('b-time').value, 10);
  const threads = parseInt($('b-threads').value, 10);
  // An alias (`best`, `paper`) takes the keys of the kind it names.
  const decl = (gameEntry().players || []).find((p) => p.kind === kind);
  const base = decl && decl.alias_of ? decl.alias_of.split(':')[0] : kind;
  const searches = ['mcts', 'nn', 'rival'].includes(base);
  if (searches && it > 0) keys.push('iterations=' + it);
  if ((searches || base === 'alphabeta' || base === 'pvs') && time > 0) keys.push('time_ms=' + time);
  if ((searches || base === 'pvs') && threads > 1) keys.push('threads=' + threads);
  if (gameEntry().name === 'dots_and_boxes') {
    if (kind === 'nn') {
      keys.push('model=' + $('b-model').value.trim());
      keys.push('threshold=' + $('b-threshold').value);
    }
    // Left at "default", each player keeps its own (the nn engine: the exact endgame from 34
    // free edges and the safe edges first; plain mcts: neither).
    const solver = parseInt($('b-solver').value, 10);
    if (searches && solver >= 0) keys.push('solver_edges=' + solver);
    if ((kind === 'mcts' || kind === 'nn') && $('b-safe').value) keys.push('safe_first=' + $('b-safe').value);
  }
  const extra = $('b-extra').value.trim();
  if (extra) keys.push(extra);
  return keys.length ? kind + ':' + keys.join(',') : kind;
}

function updateBuilder() {
  $('b-spec').textContent = builderSpec();
}

function players() {
  return [1, 2].map((i) => ($('p' + i + '-kind').value === 'engine' ? $('p' + i + '-spec').value.trim() : null));
}

function params() {
  const out = {};
  for (const p of gameEntry().params) out[p.name] = $('param-' + p.name).value;
  return out;
}

async function newGame(extra) {
  showError(null);
  selection = [];
  arrows = null;
  paused = false;
  try {
    const body = Object.assign({ game: $('game').value, params: params(), players: players() }, extra || {});
    const s = await api('POST', '/api/new', body);
    update(s);
    // A loaded record names its game: the form follows it.
    if (body.record || body.dataset) fillForm(s);
    // For tests and scripts: how many games this page has started.
    document.body.dataset.games = String(Number(document.body.dataset.games || 0) + 1);
  } catch (e) {
    showError(e);
  }
}

function fillForm(s) {
  // The form shows the game the server has for this tab (after a reload or a loaded record).
  $('game').value = s.game.game;
  renderParams(s.game);
  for (const i of [1, 2]) {
    const spec = s.players[i - 1];
    $('p' + i + '-kind').value = spec ? 'engine' : 'person';
    $('p' + i + '-spec').value = spec || defaultSpec(s.game.game);
  }
}

// ---------- the board ----------

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// `ratio`: visits over the average visits of a move; an even spread is pale, the moves the
// search liked are deep orange.
function heatColor(ratio) {
  const a = 0.08 + 0.8 * Math.min(1, Math.max(0, ratio - 0.5) / 3);
  return 'rgba(255,120,0,' + a.toFixed(3) + ')';
}

// Visits per key (a move, or a destination square) over the average of the keys.
function heatMap(keyOf) {
  const a = state && state.analysis;
  if (!a || !a.search) return {};
  const visits = {};
  for (const m of a.search.moves) {
    const k = keyOf(m.move);
    if (k) visits[k] = (visits[k] || 0) + m.visits;
  }
  const keys = Object.keys(visits);
  const total = keys.reduce((t, k) => t + visits[k], 0);
  const out = {};
  if (total === 0) return out;
  for (const k of keys) if (visits[k] > 0) out[k] = visits[k] * keys.length / total;
  return out;
}

function lastMoveText() {
  const t = state.turns;
  return t.length ? t[t.length - 1].move : '';
}

function squaresOf(text) {
  return (text.match(/[a-z]\d+/g) || []);
}

function squareName(col, row, n) {
  return String.fromCharCode(97 + col) + (n - row);
}

function drawDots(svg) {
  const rows = state.game.rows, cols = state.game.cols;
  const S = 60, M = 24;
  const w = cols * S + 2 * M, h = rows * S + 2 * M;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const [edges, , , , owners] = state.position.split(' ');
  const heat = heatMap((m) => m);
  const last = lastMoveText();
  const x = (c) => M + c * S, y = (r) => M + r * S;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const o = owners ? owners[r * cols + c] : '.';
      if (o === '1' || o === '2') {
        el('rect', { x: x(c) + 3, y: y(r) + 3, width: S - 6, height: S - 6, fill: COLOR[o], 'fill-opacity': 0.25, 'data-box': `${r},${c}`, 'data-owner': o }, svg);
        const t = el('text', { x: x(c) + S / 2, y: y(r) + S / 2 + 7, 'text-anchor': 'middle', 'font-size': 20, fill: COLOR[o] }, svg);
        t.textContent = o;
      }
    }
  }
  const edge = (id, name, x1, y1, x2, y2) => {
    const drawn = edges[id] === '1';
    if (drawn) {
      el('line', { x1, y1, x2, y2, stroke: name === last ? '#e66100' : '#333', 'stroke-width': 6, 'stroke-linecap': 'round', 'data-drawn': name }, svg);
    } else {
      if (heat[name]) el('line', { x1, y1, x2, y2, stroke: heatColor(heat[name]), 'stroke-width': 10, 'stroke-linecap': 'round' }, svg);
      // The hit area is a rectangle (a line's box has no height for clicks).
      const hx = Math.min(x1, x2) - 8, hy = Math.min(y1, y2) - 8;
      el('rect', { x: hx, y: hy, width: Math.abs(x2 - x1) + 16, height: Math.abs(y2 - y1) + 16, fill: '#000', 'fill-opacity': 0.03, rx: 6, class: 'hit', 'data-move': name }, svg);
    }
  };
  for (let r = 0; r <= rows; r++) for (let c = 0; c < cols; c++) edge(r * cols + c, `h${r},${c}`, x(c) + 5, y(r), x(c + 1) - 5, y(r));
  for (let r = 0; r < rows; r++) for (let c = 0; c <= cols; c++) edge((rows + 1) * cols + r * (cols + 1) + c, `v${r},${c}`, x(c), y(r) + 5, x(c), y(r + 1) - 5);
  for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) el('circle', { cx: x(c), cy: y(r), r: 5, fill: '#222', 'data-dot': `${r},${c}` }, svg);
}

function drawTicTacToe(svg) {
  const S = 100;
  svg.setAttribute('viewBox', '0 0 320 320');
  const cells = state.position;
  const heat = heatMap((m) => m);
  const last = lastMoveText();
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const name = String.fromCharCode(97 + c) + (r + 1);
      const x = 10 + c * S, y = 10 + r * S;
      el('rect', { x, y, width: S, height: S, fill: heat[name] ? heatColor(heat[name]) : '#fff', stroke: '#333', 'stroke-width': 2 }, svg);
      const v = cells[r * 3 + c];
      if (v === 'X' || v === 'O') {
        const t = el('text', { x: x + S / 2, y: y + S / 2 + 22, 'text-anchor': 'middle', 'font-size': 64, fill: v === 'X' ? COLOR[1] : COLOR[2], 'data-stone': name, 'data-kind': v }, svg);
        t.textContent = v;
        if (name === last) el('rect', { x: x + 4, y: y + 4, width: S - 8, height: S - 8, fill: 'none', stroke: '#e66100', 'stroke-width': 3 }, svg);
      } else {
        el('rect', { x, y, width: S, height: S, fill: '#000', 'fill-opacity': 0.0, class: 'hit', 'data-move': name }, svg);
      }
    }
  }
}

function drawGomoku(svg) {
  const rows = state.position.split(' ')[0].split('/');
  const n = rows.length, S = 30, M = 30;
  const w = (n - 1) * S + 2 * M;
  svg.setAttribute('viewBox', `0 0 ${w} ${w}`);
  el('rect', { x: 0, y: 0, width: w, height: w, fill: '#e8c77e' }, svg);
  for (let i = 0; i < n; i++) {
    el('line', { x1: M, y1: M + i * S, x2: M + (n - 1) * S, y2: M + i * S, stroke: '#5a4', 'stroke-opacity': 0 }, svg);
    el('line', { x1: M, y1: M + i * S, x2: M + (n - 1) * S, y2: M + i * S, stroke: '#333' }, svg);
    el('line', { x1: M + i * S, y1: M, x2: M + i * S, y2: M + (n - 1) * S, stroke: '#333' }, svg);
    const a = el('text', { x: M + i * S, y: M - 14, 'text-anchor': 'middle', 'font-size': 11 }, svg);
    a.textContent = String.fromCharCode(97 + i);
    const b = el('text', { x: M - 18, y: M + i * S + 4, 'text-anchor': 'middle', 'font-size': 11 }, svg);
    b.textContent = n - i;
  }
  const heat = heatMap((m) => m);
  const last = lastMoveText();
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const name = squareName(c, r, n);
      const cx = M + c * S, cy = M + r * S;
      const v = rows[r][c];
      if (v === 'X' || v === 'O') {
        el('circle', { cx, cy, r: S * 0.44, fill: v === 'X' ? '#111' : '#fafafa', stroke: '#111', 'data-stone': name, 'data-kind': v }, svg);
        if (name === last) el('circle', { cx, cy, r: 4, fill: '#e66100' }, svg);
      } else {
        if (heat[name]) el('circle', { cx, cy, r: S * 0.4, fill: heatColor(heat[name]) }, svg);
        el('circle', { cx, cy, r: S * 0.48, fill: '#000', 'fill-opacity': 0, class: 'hit', 'data-move': name }, svg);
      }
    }
  }
}

// A square board of pieces moved by clicking squares: Amazons and Surakarta.
function drawSquares(svg, kind) {
  const words = state.position.split(' ');
  const rows = words[0].split('/');
  const n = rows.length, S = kind === 'amazons' ? 48 : 64, M = kind === 'amazons' ? 24 : 112;
  const w = n * S + 2 * M;
  svg.setAttribute('viewBox', `0 0 ${w} ${w}`);
  const heat = heatMap((m) => {
    const sq = squaresOf(m);
    return sq.length >= 2 ? sq[1] : sq[0];
  });
  const last = squaresOf(lastMoveText());
  const targets = new Set(targetSquares());
  const px = (c) => M + c * S + S / 2, py = (r) => M + r * S + S / 2;
  if (kind === 'surakarta') {
    // The two circuits: the inner along the second and fifth lines, the outer along the third
    // and fourth, each closed by loops around the corners.
    const g = el('g', { fill: 'none', 'stroke-width': 3 }, svg);
    for (const [k, color] of [[1, '#3a7d44'], [2, '#b5651d']]) {
      const rr = k * S;
      const p = [px(0), py(0), px(n - 1), py(n - 1)];
      el('path', { d: `M ${p[0] + rr} ${p[1]} A ${rr} ${rr} 0 1 0 ${p[0]} ${p[1] + rr}`, stroke: color }, g);
      el('path', { d: `M ${p[2] - rr} ${p[1]} A ${rr} ${rr} 0 1 1 ${p[2]} ${p[1] + rr}`, stroke: color }, g);
      el('path', { d: `M ${p[0] + rr} ${p[3]} A ${rr} ${rr} 0 1 1 ${p[0]} ${p[3] - rr}`, stroke: color }, g);
      el('path', { d: `M ${p[2] - rr} ${p[3]} A ${rr} ${rr} 0 1 0 ${p[2]} ${p[3] - rr}`, stroke: color }, g);
      for (const i of [k, n - 1 - k]) {
        el('line', { x1: px(0), y1: py(i), x2: px(n - 1), y2: py(i), stroke: color }, g);
        el('line', { x1: px(i), y1: py(0), x2: px(i), y2: py(n - 1), stroke: color }, g);
      }
    }
    for (let i = 0; i < n; i++) {
      for (const j of [0, n - 1]) {
        el('line', { x1: px(0), y1: py(j), x2: px(n - 1), y2: py(j), stroke: '#999' }, svg);
        el('line', { x1: px(j), y1: py(0), x2: px(j), y2: py(n - 1), stroke: '#999' }, svg);
      }
    }
  }
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const name = squareName(c, r, n);
      const x = M + c * S, y = M + r * S;
      if (kind === 'amazons') {
        el('rect', { x, y, width: S, height: S, fill: (r + c) % 2 ? '#b58863' : '#f0d9b5' }, svg);
      }
      if (heat[name]) el('rect', { x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: heatColor(heat[name]), rx: 6 }, svg);
      if (last.includes(name)) el('rect', { x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: 'none', stroke: '#e66100', 'stroke-width': 3, rx: 6 }, svg);
      if (selection.includes(name)) el('rect', { x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: 'none', stroke: '#26a269', 'stroke-width': 4, rx: 6 }, svg);
      let v = rows[r][c];
      // While an arrow is chosen, the amazon stands on its new square.
      if (kind === 'amazons' && selection.length === 2) {
        if (name === selection[0]) v = '.';
        if (name === selection[1]) v = state.to_move === 1 ? 'W' : 'B';
      }
      const cx = x + S / 2, cy = y + S / 2;
      if (v === 'W' || v === 'B') {
        el('circle', { cx, cy, r: S * 0.36, fill: v === 'W' ? '#fff' : '#222', stroke: '#000', 'stroke-width': 2, 'data-piece': name, 'data-kind': v }, svg);
        const t = el('text', { x: cx, y: cy + 6, 'text-anchor': 'middle', 'font-size': S * 0.4, fill: v === 'W' ? '#222' : '#fff' }, svg);
        t.textContent = '♛';
      } else if (v === 'x') {
        el('circle', { cx, cy, r: S * 0.2, fill: '#555', 'data-arrow': name, 'data-kind': v }, svg);
      } else if (v === 'X' || v === 'O') {
        el('circle', { cx, cy, r: S * 0.3, fill: v === 'X' ? COLOR[1] : COLOR[2], stroke: '#000', 'data-piece': name, 'data-kind': v }, svg);
      } else if (kind === 'surakarta') {
        el('circle', { cx, cy, r: 3, fill: '#999' }, svg);
      }
      if (targets.has(name)) el('circle', { cx, cy, r: S * 0.12, fill: '#26a269', 'fill-opacity': 0.8 }, svg);
      el('rect', { x, y, width: S, height: S, fill: '#000', 'fill-opacity': 0, class: 'hit', 'data-square': name }, svg);
    }
  }
  for (let i = 0; i < n; i++) {
    const a = el('text', { x: px(i), y: M + n * S + 16, 'text-anchor': 'middle', 'font-size': 12, fill: '#666' }, svg);
    a.textContent = String.fromCharCode(97 + i);
    const b = el('text', { x: M - 12, y: py(i) + 4, 'text-anchor': 'middle', 'font-size': 12, fill: '#666' }, svg);
    b.textContent = n - i;
  }
}

// The squares the next click may choose (green dots), from the server's legal moves.
function targetSquares() {
  if (!state || !state.human_to_move || thinking) return [];
  const kind = state.game.game;
  if (kind === 'amazons') {
    if (state.mid_turn) return state.legal;
    if (selection.length === 0) return [...new Set(state.legal.map((m) => squaresOf(m)[0]))];
    if (selection.length === 1) {
      return [...new Set(state.legal.filter((m) => squaresOf(m)[0] === selection[0]).map((m) => squaresOf(m)[1]))];
    }
    return arrows || [];
  }
  if (kind === 'surakarta') {
    if (selection.length === 0) return [...new Set(state.legal.map((m) => squaresOf(m)[0]))];
    return state.legal.filter((m) => squaresOf(m)[0] === selection[0]).map((m) => squaresOf(m)[1]);
  }
  return [];
}

async function clickSquare(name) {
  const kind = state.game.game;
  if (!state.human_to_move || thinking) return;
  if (kind === 'amazons' && state.mid_turn) return play(name);
  if (selection.length === 0 || (selection.length === 1 && state.legal.some((m) => squaresOf(m)[0] === name))) {
    // A piece of the side to move with a legal move: the start of a move.
    if (state.legal.some((m) => squaresOf(m)[0] === name)) selection = [name];
    else selection = [];
    arrows = null;
    return draw();
  }
  if (kind === 'surakarta') {
    const mv = state.legal.find((m) => squaresOf(m)[0] === selection[0] && squaresOf(m)[1] === name);
    selection = [];
    if (mv) return play(mv);
    return draw();
  }
  // Amazons: from, to, then the arrow.
  if (selection.length === 1) {
    const queen = selection[0] + '-' + name;
    const whole = state.legal.filter((m) => m.startsWith(queen + '/'));
    if (whole.length) {
      arrows = whole.map((m) => m.split('/')[1]);
    } else if (state.legal.includes(queen)) {
      try {
        arrows = (await api('POST', '/api/legal', { after: queen })).legal;
      } catch (e) {
        showError(e);
        arrows = null;
      }
    } else {
      selection = [];
      return draw();
    }
    selection = [selection[0], name];
    return draw();
  }
  if (arrows && arrows.includes(name)) {
    const mv = selection[0] + '-' + selection[1] + '/' + name;
    selection = [];
    arrows = null;
    return play(mv);
  }
  selection = [];
  arrows = null;
  draw();
}

function draw() {
  const svg = $('board');
  svg.textContent = '';
  // For tests and scripts: what is selected, and the arrows on offer.
  document.body.dataset.selection = selection.join(' ');
  document.body.dataset.arrows = arrows ? String(arrows.length) : '';
  if (!state) return;
  const kind = state.game.game;
  svg.dataset.game = kind;
  if (kind === 'dots_and_boxes') drawDots(svg);
  else if (kind === 'tictactoe') drawTicTacToe(svg);
  else if (kind === 'gomoku') drawGomoku(svg);
  else if (kind === 'amazons' || kind === 'surakarta') drawSquares(svg, kind);
  else {
    const t = el('text', { x: 10, y: 20, 'font-family': 'monospace' }, svg);
    t.textContent = state.board;
  }
}

$('board').addEventListener('click', (ev) => {
  const t = ev.target.closest('[data-move],[data-square]');
  if (!t || !state) return;
  if (t.dataset.move) {
    if (state.human_to_move && !thinking) play(t.dataset.move);
  } else {
    clickSquare(t.dataset.square);
  }
});

// ---------- the game ----------

async function play(move) {
  showError(null);
  // Busy until the server answers: no second click meanwhile.
  setBusy(true);
  let next = null;
  try {
    next = await api('POST', '/api/play', { move });
  } catch (e) {
    showError(e);
  }
  setBusy(false);
  if (next) update(next);
  else draw();
}

function fmt(v) {
  return (v >= 0 ? '+' : '') + v.toFixed(3);
}

function renderAnalysis() {
  const box = $('analysis');
  box.textContent = '';
  const a = state.analysis;
  if (!a) return;
  const p = (html) => {
    const d = document.createElement('div');
    d.innerHTML = html;
    box.appendChild(d);
    return d;
  };
  const esc = (s) => String(s).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
  p(`<b>P${a.player}</b> (<code>${esc(a.by)}</code>) played <b>${esc(a.move)}</b> in ${a.seconds.toFixed(2)} s`);
  if (a.net) {
    p(`value net: P1 wins ${(100 * a.net.p1).toFixed(1)}%, P2 wins ${(100 * a.net.p2).toFixed(1)}%, draw ${(100 * a.net.draw).toFixed(1)}%`);
  }
  if (!a.search) {
    p(esc(a.note || ''));
    return;
  }
  const s = a.search;
  p(`value: P1 ${fmt(s.value.p1)}, P2 ${fmt(s.value.p2)} (wins minus losses over visits)`);
  p(`${s.iterations.toLocaleString()} iterations in ${s.ms.toFixed(1)} ms (${Math.round(s.iterations_per_second).toLocaleString()}/s, ${s.threads} thread${s.threads > 1 ? 's' : ''}), ${s.tree_nodes.toLocaleString()} tree nodes`);
  if (s.net_evaluations > 0) {
    p(`net: ${s.net_evaluations.toLocaleString()} evaluations, ${s.net_cutoffs.toLocaleString()} of ${s.rollouts.toLocaleString()} rollouts ended by the net (good predictions, ${(100 * s.net_cutoffs / Math.max(1, s.rollouts)).toFixed(1)}%)`);
  }
  const total = s.moves.reduce((t, m) => t + m.visits, 0) || 1;
  const rows = s.moves.slice(0, 10).map((m) =>
    `<tr><td>${esc(m.move)}</td><td>${m.visits.toLocaleString()}</td><td>${(100 * m.visits / total).toFixed(1)}%</td><td>${fmt(m.value)}</td></tr>`).join('');
  p(`<table><tr><th>move</th><th>visits</th><th>share</th><th>value</th></tr>${rows}</table>` +
    (s.root_moves > 10 ? `<small>${s.root_moves} moves searched; the board shows the visits as heat</small>` : ''));
}

function renderStatus() {
  const s = state;
  let text;
  if (s.over) {
    text = 'Game over: ' + s.result;
  } else {
    const who = s.players[s.to_move - 1];
    text = `P${s.to_move} to move` + (who ? ` (engine: ${who})` : ' (you: click the board)');
    if (s.mid_turn) text += ', the same turn goes on';
  }
  if (s.scores) text += ` — score ${s.scores[0]} : ${s.scores[1]}`;
  $('status').textContent = text;
  $('status').dataset.over = s.over ? '1' : '0';
  const ol = $('moves');
  ol.textContent = '';
  for (const t of s.turns) {
    const li = document.createElement('li');
    li.textContent = `P${t.player} ${t.move}` + (t.by ? `  (${t.seconds.toFixed(2)} s)` : '');
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
  renderClocks();
  const engines = s.players.filter((p) => p).length;
  $('pause').hidden = engines < 2;
  $('pause').textContent = paused ? 'Go on' : 'Pause';
  $('undo').disabled = thinking || s.turns.length === 0;
  $('dataset').disabled = !s.over;
  $('stop').disabled = !thinking;
}

function renderClocks() {
  if (!state) return;
  const c = state.clocks.slice();
  if (liveThinking) c[liveThinking.player - 1] += liveThinking.elapsed / 1000;
  for (const i of [1, 2]) {
    const e = $('clock' + i);
    e.textContent = `P${i} ${c[i - 1].toFixed(2)} s`;
    e.className = state && !state.over && state.to_move === i ? 'on' : '';
  }
}

function update(s) {
  state = s;
  document.body.dataset.turns = s.turns.length;
  draw();
  renderStatus();
  renderAnalysis();
  maybeEngine();
}

function showProgress(t) {
  const box = $('progress');
  if (!t) {
    box.hidden = true;
    liveThinking = null;
    return;
  }
  box.hidden = false;
  liveThinking = { player: state.to_move, elapsed: t.elapsed_ms };
  const secs = (t.elapsed_ms / 1000).toFixed(1);
  if (t.time_ms) {
    box.classList.remove('indeterminate');
    $('bar').style.width = Math.min(100, 100 * t.elapsed_ms / t.time_ms) + '%';
    $('progress-text').textContent = `thinking ${secs} s of ${(t.time_ms / 1000).toFixed(1)} s`;
  } else {
    box.classList.add('indeterminate');
    $('bar').style.width = '';
    $('progress-text').textContent = `thinking ${secs} s` + (t.iterations ? ` (${t.iterations.toLocaleString()} iterations)` : '');
  }
  renderClocks();
}

async function maybeEngine() {
  if (state && state.thinking && !thinking) {
    // A reloaded tab while its engine thinks: wait for the move.
    setBusy(true);
    while (true) {
      await new Promise((r) => setTimeout(r, 250));
      let s = null;
      try { s = await api('GET', '/api/state?session=' + encodeURIComponent(session)); } catch (e) { break; }
      if (!s.thinking) { setBusy(false); showProgress(null); return update(s); }
      showProgress(s.thinking);
    }
    setBusy(false);
  }
  if (!state || state.over || thinking || paused || state.human_to_move) return;
  setBusy(true);
  renderStatus();
  showProgress({ elapsed_ms: 0 });
  pollTimer = setInterval(async () => {
    try {
      const s = await api('GET', '/api/state?session=' + encodeURIComponent(session));
      if (s.thinking) showProgress(s.thinking);
    } catch (e) { /* the move's answer reports errors */ }
  }, 200);
  let next = null;
  try {
    next = await api('POST', '/api/engine', {});
  } catch (e) {
    showError(e);
    paused = true;
  } finally {
    clearInterval(pollTimer);
    showProgress(null);
    setBusy(false);
  }
  if (next) {
    // Two engines: a moment between moves so people can follow the game.
    const both = next.players.every((p) => p);
    if (both && !next.over) await new Promise((r) => setTimeout(r, 300));
    update(next);
  } else {
    renderStatus();
  }
}

// ---------- buttons ----------

$('setup').addEventListener('submit', (ev) => {
  ev.preventDefault();
  newGame();
});
$('game').addEventListener('change', () => {
  renderParams();
  for (const i of [1, 2]) $('p' + i + '-spec').value = defaultSpec($('game').value);
  updateBuilder();
});
for (const id of ['b-kind', 'b-iterations', 'b-time', 'b-threads', 'b-model', 'b-threshold', 'b-solver', 'b-safe', 'b-extra']) {
  $(id).addEventListener('input', updateBuilder);
}
$('b-p1').addEventListener('click', () => { $('p1-spec').value = builderSpec(); $('p1-kind').value = 'engine'; });
$('b-p2').addEventListener('click', () => { $('p2-spec').value = builderSpec(); $('p2-kind').value = 'engine'; });
$('undo').addEventListener('click', async () => {
  showError(null);
  selection = [];
  arrows = null;
  paused = state && state.players.every((p) => p);
  try {
    update(await api('POST', '/api/undo', {}));
  } catch (e) {
    showError(e);
  }
});
$('stop').addEventListener('click', () => api('POST', '/api/stop', {}).catch(showError));
$('pause').addEventListener('click', () => {
  paused = !paused;
  renderStatus();
  maybeEngine();
});
function download(path, name) {
  const a = document.createElement('a');
  a.href = path + '?session=' + encodeURIComponent(session);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
$('record').addEventListener('click', () => download('/api/record', 'game.txt'));
$('dataset').addEventListener('click', () => download('/api/dataset', 'game.rec'));
$('load').addEventListener('change', async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const bytes = new Uint8Array(await file.arrayBuffer());
  ev.target.value = '';
  // A record file of the dataset format starts with "MCTSGAME"; anything else is a move list.
  if (String.fromCharCode(...bytes.slice(0, 8)) === 'MCTSGAME') {
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.slice(i, i + 0x8000));
    await newGame({ dataset: btoa(bin) });
  } else {
    await newGame({ record: new TextDecoder().decode(bytes) });
  }
});

async function start() {
  try {
    const list = await api('GET', '/api/games');
    games = list.games;
    // The shipped models the server offers: the only files a page may name (docs/serve.md).
    for (const name of list.models || []) {
      const o = document.createElement('option');
      o.value = name;
      $('models').appendChild(o);
    }
  } catch (e) {
    showError(e);
    return;
  }
  for (const g of games) {
    const o = document.createElement('option');
    o.value = g.name;
    o.textContent = g.name.replace(/_/g, ' ');
    o.title = g.about;
    $('game').appendChild(o);
  }
  $('p1-kind').value = 'person';
  $('p2-kind').value = 'engine';
  try {
    // A reloaded tab finds its game again.
    const s = await api('GET', '/api/state?session=' + encodeURIComponent(session));
    fillForm(s);
    updateBuilder();
    update(s);
  } catch (e) {
    $('game').value = 'dots_and_boxes';
    renderParams();
    $('p1-spec').value = $('p2-spec').value = defaultSpec('dots_and_boxes');
    updateBuilder();
    await newGame();
  }
}

start();
