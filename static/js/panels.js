// The panels drawn without Plotly: the arithmetic of one step, the weight bars, the alignment picture, data tables,
// the small multiples of every head, and CSV/JSON export. Text from users only ever goes in via
// textContent / setAttribute, never as HTML.
import { fmt, fmtVector, textUnits } from "./format.js";

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, text = undefined) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A labelled table of a matrix: the accessible twin of a heatmap. */
export function matrixTable(slot, { rows, cols, z, mask = null, caption }) {
  const table = el("table", { class: "data" }, el("caption", { text: caption }));
  const head = el("tr", {}, el("th", { scope: "col", text: "" }));
  cols.forEach((c) => head.append(el("th", { scope: "col", text: c })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  z.forEach((row, i) => {
    const tr = el("tr", {}, el("th", { scope: "row", text: rows[i] }));
    row.forEach((x, j) => tr.append(el("td", { text: mask && !mask[i][j] ? "×" : fmt(x, 4) })));
    body.append(tr);
  });
  table.append(body);
  slot.replaceChildren(table);
}

function dot(a, b) {
  return a.reduce((sum, x, i) => sum + x * b[i], 0);
}

/**
 * Every number of one query step: q, each key, q·k, the scaling, the exponentials and their sum,
 * each weight, each weight × value, and the output vector.
 */
export function arithmetic(slot, { head, step, keys, query, params, dk, t, names = null }) {
  const vec = (row) => fmtVector(row, 3, names);
  const q = head.q[step];
  const scores = head.scores[step];
  const mask = head.mask[step];
  const weights = head.weights[step];
  const T = params.temperature;
  const visible = scores.filter((_, j) => mask[j]);
  const top = Math.max(...visible);
  const shift = Math.max(...visible.map((s) => Math.abs(s / T))) > 50 ? top : 0; // keep e^x printable
  const exps = scores.map((s, j) => (mask[j] ? Math.exp((s - shift) / T) : 0));
  const total = exps.reduce((a, b) => a + b, 0);
  const score = params.score;

  const intro = el("p", { class: "formula" });
  const scoreText = {
    dot: "s = q·k",
    scaled_dot: `s = q·k / √${dk} = q·k / ${fmt(Math.sqrt(dk), 4)}`,
    cosine: "s = q·k / (|q| |k|)",
    general: "s = qᵀ W k",
    additive: "s = vᵀ tanh(W₁q + W₂k)",
  }[score] || "s";
  const expText = shift ? `e^((s − ${fmt(shift)}) / T)` : "e^(s / T)";
  intro.textContent = `${t.query_word} “${query}”: q = ${vec(q)} · ${scoreText} · ${params.hard ? t.hard_note : `a = ${expText} / Σ, T = ${fmt(T)}`}`;

  const headRow = el("tr");
  const columns = [t.key, "k", ...(["dot", "scaled_dot", "cosine"].includes(score) ? [t.product] : []),
    ...(score === "scaled_dot" ? [t.scaled] : []), ...(score === "cosine" ? ["|q||k|"] : []),
    "s", ...(params.hard ? [] : [shift ? `e^((s−${fmt(shift)})/T)` : t.exp]), t.weight, t.weighted_value];
  columns.forEach((c) => headRow.append(el("th", { scope: "col", text: c })));
  const body = el("tbody");
  keys.forEach((key, j) => {
    const k = head.k[j];
    const cells = [vec(k)];
    if (["dot", "scaled_dot", "cosine"].includes(score)) cells.push(fmt(dot(q, k), 4));
    if (score === "scaled_dot") cells.push(`÷ ${fmt(Math.sqrt(dk), 4)}`);
    if (score === "cosine") cells.push(fmt(Math.hypot(...q) * Math.hypot(...k), 4));
    cells.push(fmt(scores[j], 4));
    if (!params.hard) cells.push(mask[j] ? fmt(exps[j], 4) : t.masked);
    cells.push(mask[j] ? fmt(weights[j], 4) : `0 (${t.masked})`);
    cells.push(vec(head.v[j].map((x) => x * weights[j])));
    const tr = el("tr", { class: mask[j] ? (weights[j] === Math.max(...weights) ? "best" : "") : "masked" },
      el("th", { scope: "row", text: key }));
    cells.forEach((c) => tr.append(el("td", { text: c })));
    body.append(tr);
  });
  const foot = el("tfoot");
  const sumRow = el("tr", {}, el("th", { scope: "row", text: t.sum }));
  const blanks = columns.length - (params.hard ? 3 : 4);
  for (let i = 0; i < blanks; i++) sumRow.append(el("td"));
  if (!params.hard) sumRow.append(el("td", { text: `Σ = ${fmt(total, 4)}` }));
  sumRow.append(el("td", { text: fmt(weights.reduce((a, b) => a + b, 0), 4) }));
  sumRow.append(el("td", { class: "output", text: `${t.output} = ${vec(head.output[step])}` }));
  foot.append(sumRow);
  const table = el("table", { class: "arith" }, el("thead", {}, headRow), body, foot);
  slot.replaceChildren(intro, el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": t.arithmetic }, table));
}

/** The weights of one step as bars: the seed's "(Tom, 0.3) (Chase, 0.2) (Jerry, 0.5)" picture. */
export function bars(slot, { labels, values, present = false }) {
  const font = present ? 28 : 14;
  const barWidth = Math.max(present ? 56 : 22, Math.min(90, 900 / Math.max(labels.length, 1)));
  const chartHeight = present ? 300 : 170;
  const labelWidth = Math.max(...labels.map((label) => textUnits(label))) * font;
  const rotate = labelWidth > barWidth;
  const bottom = (rotate ? labelWidth * 0.75 : 0) + font + 12;
  const width = labels.length * barWidth + 20;
  const height = chartHeight + bottom + font + 8;
  const best = values.indexOf(Math.max(...values));
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": labels.map((l, j) => `${l} ${fmt(values[j], 2)}`).join(", ") });
  const base = font + 8 + chartHeight;
  values.forEach((v, j) => {
    const x = 10 + j * barWidth;
    const h = Math.max(0, v) * chartHeight;
    root.append(svg("rect", { x: x + 3, y: base - h, width: barWidth - 6, height: h, class: j === best ? "bar best" : "bar" }));
    if (labels.length <= 24 || j === best) {
      root.append(svg("text", { x: x + barWidth / 2, y: base - h - 4, "text-anchor": "middle", "font-size": font * 0.8, class: "bar-value" }, fmt(v, 2)));
    }
    root.append(svg("text", { x: x + barWidth / 2, y: base + font + 2, "font-size": font, class: "bar-label",
      "text-anchor": rotate ? "end" : "middle", transform: rotate ? `rotate(-45 ${x + barWidth / 2} ${base + font + 2})` : "" }, labels[j]));
  });
  slot.replaceChildren(root);
}

/** Query tokens and key tokens in two rows, joined by lines whose thickness follows the weight. */
export function alignment(slot, { queries, keys, weights, step, present, queryOnTop, label }) {
  const font = present ? 28 : 15;
  const gap = present ? 40 : 14;
  const widthOf = (w) => Math.max(3, textUnits(w, 0.62)) * font + gap;
  const place = (words) => {
    const xs = [];
    let x = 10;
    for (const w of words) { xs.push(x + widthOf(w) / 2); x += widthOf(w); }
    return { xs, width: x };
  };
  const top = place(queryOnTop ? queries : keys);
  const bottom = place(queryOnTop ? keys : queries);
  const width = Math.max(top.width, bottom.width) + 10;
  const height = present ? 300 : 170;
  const yTop = font + 6;
  const yBottom = height - 10;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "align-svg", "aria-label": label });
  const qx = queryOnTop ? top.xs : bottom.xs;
  const kx = queryOnTop ? bottom.xs : top.xs;
  const qy = queryOnTop ? yTop + 8 : yBottom - font - 4;
  const ky = queryOnTop ? yBottom - font - 4 : yTop + 8;
  const everyRow = queries.length <= 16; // longer sentences: only the current step's lines, or it is a thicket
  weights.forEach((row, i) => row.forEach((w, j) => {
    if (w < 0.01 || (!everyRow && i !== step)) return;
    const current = i === step;
    root.append(svg("line", {
      x1: qx[i], y1: qy, x2: kx[j], y2: ky,
      "stroke-width": (present ? 16 : 9) * w + 0.5,
      class: current ? "align-line current" : "align-line",
    }));
  }));
  const words = (list, xs, y, isQuery) => list.forEach((word, i) => {
    root.append(svg("text", { x: xs[i], y, "text-anchor": "middle", "font-size": font,
      class: isQuery && i === step ? "align-word current" : "align-word" }, word));
  });
  words(queries, qx, queryOnTop ? yTop : yBottom, true);
  words(keys, kx, queryOnTop ? yBottom : yTop, false);
  slot.replaceChildren(root);
}

/** Small multiples: every head's weights as a little canvas; choosing one makes it the current head. */
export function headGrid(slot, { heads, current, onPick, label }) {
  const size = 140;
  const buttons = heads.map((head, h) => {
    const n = head.weights.length;
    const m = head.weights[0].length;
    const canvas = el("canvas", { width: size, height: size, "aria-hidden": "true" });
    const ctx = canvas.getContext("2d");
    const cw = size / m;
    const ch = size / n;
    head.weights.forEach((row, i) => row.forEach((w, j) => {
      const shade = Math.round(255 * (1 - w));
      ctx.fillStyle = head.mask[i][j] ? `rgb(${shade}, ${shade}, 255)` : "#cccccc";
      ctx.fillRect(j * cw, i * ch, Math.ceil(cw), Math.ceil(ch));
    }));
    const button = el("button", { type: "button", class: "head-button", "aria-pressed": h === current ? "true" : "false" },
      canvas, el("span", { text: `${label} ${h}` }));
    button.addEventListener("click", () => onPick(h));
    return button;
  });
  slot.replaceChildren(...buttons);
}

export function toCsv(rows, cols, z) {
  const quote = (s) => `"${String(s).replace(/"/g, '""')}"`;
  const lines = [["", ...cols].map(quote).join(",")];
  z.forEach((row, i) => lines.push([quote(rows[i]), ...row.map((x) => (typeof x === "boolean" ? x : String(x)))].join(",")));
  return lines.join("\n") + "\n";
}

export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The real model's layer × head grid of small weight maps (from the API's `overview`); pick one to study. */
export function modelGrid(slot, { overview, layer, head, onPick, t }) {
  const size = overview.size;
  const table = el("table", { class: "model-grid" });
  const top = el("tr", {}, el("th", { scope: "col", text: `${t.layer} \\ ${t.head}` }));
  overview.maps[0].forEach((_, h) => top.append(el("th", { scope: "col", text: String(h) })));
  table.append(el("thead", {}, top));
  const body = el("tbody");
  overview.maps.forEach((row, l) => {
    const tr = el("tr", {}, el("th", { scope: "row", text: String(l) }));
    row.forEach((encoded, h) => {
      const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
      const canvas = el("canvas", { width: size, height: size, "aria-hidden": "true" });
      const ctx = canvas.getContext("2d");
      const image = ctx.createImageData(size, size);
      bytes.forEach((w, i) => {
        const shade = 255 - w;
        image.data.set([shade, shade, 255, 255], i * 4);
      });
      ctx.putImageData(image, 0, 0);
      const chosen = l === layer && h === head;
      const button = el("button", { type: "button", class: "map-button", "aria-pressed": chosen ? "true" : "false",
        "aria-label": `${t.layer} ${l}, ${t.head} ${h}`, title: `${t.layer} ${l}, ${t.head} ${h}` }, canvas);
      button.addEventListener("click", () => onPick(l, h));
      tr.append(el("td", {}, button));
    });
    body.append(tr);
  });
  table.append(body);
  slot.replaceChildren(table);
}
