// The geometry panel: the head's queries (● circles) and keys (◆ diamonds) as points in one plane, the server's
// plane (view.geometry: its axes, its basis, how much it keeps), a line from the current query to every key as
// wide as its weight, and beside it the numbers of those lines (q·k, score, weight) as text: a classroom has no
// hover. The words written are the current query's and those of the keys the table lists (the strongest), placed so
// that none covers another word or a point (placement.js), with a leader line when a word sits away from its point;
// the other points are named in the table of every point ("Show as a table"), never only on hover. A step redraws only this figure; the plane, the stretch and the temperature are the server's.
import { fmt, fmtWeight, textUnits } from "./format.js";
import { el } from "./panels.js";
import { placeLabels } from "./placement.js";

const CONFIG = { displayModeBar: false, responsive: false };
const HALO = 3; // px: the paper-coloured outline that keeps a word legible where a line passes under it
const MAX_LINE = 14; // px: the width of a line of weight 1 (at 16 px type; it grows with the type)

/** Plotly reads <b>, <a href>, &entities; in labels as markup: user words must be shown as typed. */
const plain = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function colours(dark) {
  return dark
    ? { paper: "#000000", ink: "#ffffff", grid: "#444444", query: "#7cc6ff", key: "#ffb000", line: "#ff9f1c" }
    : { paper: "#ffffff", ink: "#1a1a1a", grid: "#dddddd", query: "#1f4e9c", key: "#b35900", line: "#d7263d" };
}

/** q·k of the current query with every key, from the head's own vectors (the server's lines are the link's step). */
function dots(head, step) {
  const q = head.q[step];
  return head.k.map((k) => k.reduce((sum, x, d) => sum + x * q[d], 0));
}

/** The lines of step `step`: each key's q·k, score and weight, and whether the query may see it. */
export function linesOf(view, step) {
  const g = view.geometry;
  if (g.lines.step === step) return g.lines;
  const head = view.head;
  return { step, dots: g.lines.dots === null ? null : dots(head, step), scores: head.scores[step], weights: head.weights[step], mask: head.mask[step] };
}

/** The keys in the order the table lists them: the largest weight first (ties: sentence order). */
function ranked(lines) {
  return lines.weights.map((w, j) => j).sort((a, b) => lines.weights[b] - lines.weights[a] || a - b);
}

/** One sentence about the plane: its axes and how much of the vectors it keeps (a projection always says). */
export function planeNote(view, t, label) {
  const g = view.geometry;
  const percent = (x) => `${fmt(100 * x, 3)}%`;
  const words = { a: label(g.axes[0]), b: label(g.axes[1]), retained: percent(g.retained), d: String(view.geometry.basis[0].length) };
  if (g.score_share !== null && g.score_share !== undefined) words.share = percent(g.score_share);
  const template = t[`geometry_${g.method}`] || "";
  let note = template.replace(/\{(\w+)\}/g, (_, name) => words[name] ?? "");
  if (g.stretch !== 1) note += ` ${t.geometry_stretch.replace("{stretch}", fmt(g.stretch)).replace("{square}", fmt(g.stretch * g.stretch))}`;
  return note;
}

/** Axis ranges that hold every point with a margin, fixed per view. */
function ranges(g) {
  const span = (values) => {
    const low = Math.min(0, ...values);
    const high = Math.max(0, ...values);
    const pad = (high - low || 1) * 0.12;
    return [low - pad, high + pad];
  };
  const all = [...g.queries, ...g.keys];
  return { x: span(all.map((p) => p[0])), y: span(all.map((p) => p[1])) };
}

/**
 * Draw the plane into `chart` and the current step's numbers into `table`. Plotly draws the points and the axes
 * once per view and box; a step redraws only the layer under them (the lines, the current query's ring), the words
 * over them (drawLines) and the table, so stepping never waits for Plotly.
 * box: {width, height (a budget or null), font, dark, key}; label: a feature's name in the page's language.
 * Returns null when the step was drawn at once, or Plotly's promise when the plane itself was (re)drawn.
 */
export function drawGeometry(chart, table, { view, step, box, t, label, rows = 8 }) {
  const g = view.geometry;
  const c = colours(box.dark);
  const font = box.font;
  const { queries: queryWords, keys: keyWords } = view.tokens;
  const lines = linesOf(view, step);
  const order = ranked(lines);
  fillTable(table, { view, lines, order, rows, t });
  chart.geometryStep = { view, step, lines, order, c, font, rows };
  const key = `${box.key}|${box.dark}|${font}`;
  if (chart.steady && chart.steady.view === view && chart.steady.key === key && chart._fullLayout) {
    drawLines(chart);
    return null; // drawn already
  }
  const size = Math.round(font * 0.75);
  const data = [
    { type: "scatter", mode: "markers", name: t.geometry_key, x: g.keys.map((p) => p[0]), y: g.keys.map((p) => p[1]),
      marker: { symbol: "diamond", size, color: c.key, line: { width: 1, color: c.paper } },
      hoverinfo: "text", hovertext: keyWords.map(plain), cliponaxis: false },
    { type: "scatter", mode: "markers", name: t.geometry_query, x: g.queries.map((p) => p[0]), y: g.queries.map((p) => p[1]),
      marker: { symbol: "circle-open", size, color: c.query, line: { width: 2 } },
      hoverinfo: "text", hovertext: queryWords.map(plain), cliponaxis: false },
  ];
  const fixed = ranges(g);
  const axis = (name, range) => ({ title: { text: plain(label(name)), font: { size: Math.round(font * 0.8), color: c.ink }, standoff: 2 },
    tickfont: { size: Math.round(font * 0.7), color: c.ink }, gridcolor: c.grid, zerolinecolor: c.ink, fixedrange: true,
    automargin: false, range });
  const height = box.height ? Math.max(160, box.height) : Math.round(Math.min(box.width * 0.8, 560));
  const pad = font * 1.4;
  const layout = {
    width: box.width, height, showlegend: false, hovermode: "closest",
    margin: { l: font * 3, r: pad, t: pad, b: font * 2.6 },
    xaxis: axis(g.axes[0], fixed.x), yaxis: { ...axis(g.axes[1], fixed.y), scaleanchor: "x", scaleratio: 1 },
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", font: { color: c.ink }, // the lines show through
  };
  chart.steady = { view, key };
  return Plotly.react(chart, data, layout, CONFIG).then(() => {
    if (!chart.dataset.watched) {
      chart.on("plotly_afterplot", () => drawLines(chart)); // a relayout moves the lines with the points
      chart.dataset.watched = "true";
    }
    drawLines(chart);
  });
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Width in px of `text` at `size` px in the layer's font (a canvas measures it as the SVG will draw it). */
let measurer = null;
function textWidth(text, size, weight, family) {
  measurer = measurer || document.createElement("canvas").getContext("2d");
  measurer.font = `${weight} ${size}px ${family}`;
  return measurer.measureText(text).width;
}

/**
 * The current step's pictures: under the points a line to every key (the widest last, on top) and the query's ring;
 * over them the words, placed by placement.js so that none overlaps another word, a point or a leader line.
 */
function drawLines(chart) {
  const s = chart.geometryStep;
  const layout = chart._fullLayout;
  const layer = chart.parentElement.querySelector("svg.geometry-layer");
  const words = chart.parentElement.querySelector("svg.geometry-labels");
  if (!s || !layout || !layer || !words) return;
  const { view, step, lines, order, c, font, rows } = s;
  const g = view.geometry;
  const { l, t, w, h } = layout._size;
  const px = (point) => [l + layout.xaxis.l2p(point[0]), t + layout.yaxis.l2p(point[1])];
  for (const svgLayer of [layer, words]) {
    svgLayer.setAttribute("width", String(layout.width));
    svgLayer.setAttribute("height", String(layout.height));
  }
  const [hx, hy] = px(g.queries[step]);
  const widest = Math.max(...lines.weights.filter((_, j) => lines.mask[j]));
  const parts = [];
  const drawn = []; // the lines as segments, for the words to keep off
  for (const j of [...order].reverse()) {
    const [kx, ky] = px(g.keys[j]);
    const visible = lines.mask[j];
    const width = visible ? 0.5 + (MAX_LINE * font * lines.weights[j]) / 16 : 1;
    drawn.push({ x1: hx, y1: hy, x2: kx, y2: ky, width });
    parts.push(svg("line", { x1: hx, y1: hy, x2: kx, y2: ky, stroke: c.line, "stroke-linecap": "round",
      "stroke-width": width, "stroke-dasharray": visible ? "" : "3 4",
      "stroke-opacity": visible && lines.weights[j] === widest ? 0.95 : 0.55, "data-key": j }));
  }
  const ring = Math.round(font * 0.6);
  parts.push(svg("circle", { cx: hx, cy: hy, r: ring, fill: c.query, stroke: c.line, "stroke-width": 3 }));
  layer.replaceChildren(...parts);
  layer.dataset.step = String(step);

  // The words, most important first: the current query's, then the keys the table lists, the largest weight first.
  const marker = Math.round(font * 0.75) / 2 + 1; // px: a point's radius (Plotly's marker size is its width)
  const small = Math.round(font * 0.8);
  const family = getComputedStyle(words).fontFamily;
  const wanted = [{ kind: "query", index: step, size: font, weight: 700, r: ring + 1.5 }];
  for (const j of order.slice(0, rows)) wanted.push({ kind: "key", index: j, size: small, weight: 400, r: marker });
  const labels = wanted.map((item, id) => {
    const text = view.tokens[item.kind === "key" ? "keys" : "queries"][item.index];
    const [x, y] = px(g[item.kind === "key" ? "keys" : "queries"][item.index]);
    return { ...item, id, text, x, y, w: textWidth(text, item.size, item.weight, family) + 2 * HALO,
      h: Math.ceil(item.size * 1.25), above: item.kind === "query" };
  });
  const points = [...g.keys, ...g.queries].map((point) => {
    const [x, y] = px(point);
    return { x: x - marker, y: y - marker, w: 2 * marker, h: 2 * marker };
  });
  points.push({ x: hx - ring - 1.5, y: hy - ring - 1.5, w: 2 * ring + 3, h: 2 * ring + 3 });
  const placed = placeLabels(labels, { points, lines: drawn, bounds: { x: l, y: t, w, h } });
  const texts = [];
  for (const { id, box, leader } of placed) {
    const label = labels[id];
    const colour = label.kind === "key" ? c.key : c.query;
    if (leader) texts.push(svg("line", { ...leader, stroke: colour, "stroke-width": 1, class: "geometry-leader" }));
    texts.push(svg("text", { x: box.x + HALO, y: box.y + box.h / 2, fill: colour, "font-size": label.size,
      "font-weight": label.weight, "dominant-baseline": "central", stroke: c.paper, "stroke-width": HALO,
      "stroke-linejoin": "round", "paint-order": "stroke", class: "geometry-word", "data-kind": label.kind,
      "data-index": label.index, "data-current": String(label.id === 0) }, label.text));
  }
  words.replaceChildren(...texts);
  words.dataset.step = String(step);
}

/** The current query's lines as text: the strongest `rows` keys, then how many more. */
function fillTable(table, { view, lines, order, rows, t }) {
  const keyWords = view.tokens.keys;
  const head = el("tr", {}, ...[t.geometry_key, t.geometry_dot, t.geometry_score, t.geometry_weight].map((text) => el("th", { scope: "col", text })));
  const body = el("tbody");
  const shown = order.slice(0, rows);
  shown.forEach((j, n) => {
    const tr = el("tr", { class: [n === 0 ? "best" : "", lines.mask[j] ? "" : "masked"].join(" ").trim() || null },
      el("th", { scope: "row", text: keyWords[j] }),
      el("td", { text: lines.dots === null ? "–" : fmt(lines.dots[j], 3) }), el("td", { text: fmt(lines.scores[j], 3) }),
      el("td", { text: lines.mask[j] ? fmtWeight(lines.weights[j]) : "×" }));
    body.append(tr);
  });
  const parts = [el("thead", {}, head), body];
  if (order.length > shown.length) {
    parts.push(el("tfoot", {}, el("tr", {}, el("td", { colspan: "4", text: t.geometry_more.replace("{count}", String(order.length - shown.length)) }))));
  }
  table.replaceChildren(...parts);
  table.dataset.step = String(lines.step);
  table.style.setProperty("--key-width", `${Math.min(12, Math.max(3, ...shown.map((j) => textUnits(keyWords[j]))))}em`);
}

/**
 * The panel's own knobs (its plane, the stretch, the temperature, the score function) move the form's controls, so a slide
 * without the form changes the view the same way: the form asks the server, and every panel redraws.
 */
export function wireGeometryTools({ setPlane }) {
  for (const button of document.querySelectorAll("#plane-toggle button")) {
    button.addEventListener("click", () => setPlane(button.dataset.plane));
  }
  const setForm = (name, value) => {
    const control = document.getElementById(name);
    if (!control || control.value === value) return;
    control.value = value;
    control.dispatchEvent(new Event("input", { bubbles: true }));
  };
  for (const slider of document.querySelectorAll(".geometry-tools input[type=range]")) {
    slider.addEventListener("input", () => {
      document.getElementById(`${slider.id}-value`).textContent = slider.value;
      setForm(slider.dataset.for, slider.value);
    });
  }
  const score = document.getElementById("geometry-score");
  score.addEventListener("change", () => setForm("score", score.value));
}

/** The knobs show the view's own settings; those that do not apply to it are hidden, and a trained model's view says why. */
export function syncGeometryTools(view) {
  const engine = view.mode !== "model" && view.mode !== "translate"; // the trained models have their own settings
  const params = view.params;
  document.getElementById("plane-toggle").hidden = !view.named_head;
  for (const button of document.querySelectorAll("#plane-toggle button")) {
    button.setAttribute("aria-pressed", String(view.geometry !== null && button.dataset.plane === view.geometry.plane));
  }
  document.getElementById("geometry-knob-note").hidden = engine; // a trained model: the page says why there are none
  for (const knob of document.querySelectorAll(".geometry-knob")) {
    const name = knob.dataset.knob;
    knob.hidden = !engine || (name === "temperature" && params.hard);
    const slider = knob.querySelector("input[type=range]");
    if (slider && document.activeElement !== slider) {
      slider.value = String(params[name]);
      knob.querySelector("output").textContent = String(params[name]);
    }
  }
  // the score functions as the form offers them in this mode (its options, with their names and availability)
  const form = document.getElementById("score");
  const score = document.getElementById("geometry-score");
  if (form && engine) {
    score.replaceChildren(...[...form.options].map((option) => option.cloneNode(true)));
    score.value = params.score;
  }
}
