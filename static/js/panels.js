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

/**
 * Notes, each a sentence on a line of its own (span.unknown-note is a block), with a space between two so that
 * their text stays apart where it is read as text (copied, or by a screen reader).
 */
export function noteLines(notes) {
  return notes.flatMap((text, i) => [...(i ? [" "] : []), el("span", { class: "unknown-note", text })]);
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, text = undefined) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A labelled table of a matrix: the accessible twin of a heatmap. */
export function matrixTable(slot, { rows, cols, z, mask = null, caption, norms = null }) {
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
  if (norms) { // one more row under the matrix: each key's ‖v W_O‖, what weight × value norm multiplies
    const tr = el("tr", {}, el("th", { scope: "row", title: norms.caption, text: norms.label }));
    norms.values.forEach((x) => tr.append(el("td", { text: fmt(x, 4) })));
    table.append(el("tfoot", {}, tr));
  }
  slot.replaceChildren(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": caption }, table));
}

const VECTOR_LIMIT = 4; // entries of a vector written in the arithmetic table (all of them on focus)

/** A table cell of a vector: abbreviated when long, the whole vector shown on focus and read out. */
function vectorCell(row, names) {
  const whole = fmtVector(row, 3, names);
  const short = fmtVector(row, 3, names, VECTOR_LIMIT);
  if (short === whole) return el("td", { class: "vec", text: whole });
  return el("td", { class: "vec long", tabindex: "0" }, el("span", { class: "short", "aria-hidden": "true", text: short }),
    el("span", { class: "whole", text: whole }));
}

/**
 * Every number of one query step, as the server's engine wrote them out (app/engine/attention/arithmetic.py):
 * q, each key, q·k (or qᵀW·k, or v·tanh(W₁q + W₂k)), the scaling, the exponentials and their sum, each
 * weight, each weight × value, and the output vector (and, when stage 2 shows weight × value norm, a table of each
 * key's ‖v W_O‖, α‖v W_O‖ and its share of their total). Nothing is recomputed here. Long vectors are
 * abbreviated so that every column fits; each shows in full on focus, and in the table below it.
 */
export function arithmetic(slot, { board, keys, query, t, names, norms: shown = false }) {
  const soft = board.exponentials !== undefined && board.exponentials !== null;
  const norms = shown && Boolean(board.value_norms); // with attribution=norm: each key's ‖v W_O‖, α‖v W_O‖, share
  const shift = board.shift || 0;
  const formula = (t[`formula_${board.score}`] || "s").replace("{d}", String(board.q.length)).replace("{scale}", fmt(board.scale, 4));
  const expText = shift ? `e^((s − ${fmt(shift)}) / T)` : "e^(s / T)";
  const intro = el("p", { class: "formula" });
  intro.textContent = `${t.query_word} “${query}”: q = ${fmtVector(board.q, 3, names.vectors, 8)} · ${formula} · ${soft ? `a = ${expText} / Σ, T = ${fmt(board.temperature)}` : t.hard_note}`;
  const lines = [intro];
  if (board.qW) lines.push(el("p", { class: "formula", text: `qᵀW = ${fmtVector(board.qW, 3, null, 8)}` }));
  if (board.W1q) lines.push(el("p", { class: "formula", text: `W₁q = ${fmtVector(board.W1q, 3, null, 8)}` }));
  // The columns are the intermediate numbers the server's engine wrote out for this score function;
  // a column's cell is a text (a number) or a vector with its feature names.
  const columns = [
    [t.key, null],
    ["k", (j) => ({ vector: board.k[j], names: names.vectors })],
    board.dots && [t.product, (j) => fmt(board.dots[j], 4)],
    board.scale && [t.scaled, () => `÷ ${fmt(board.scale, 4)}`],
    board.norms && ["|q||k|", (j) => fmt(board.norms[j], 4)],
    board.W2k && ["W₂k", (j) => ({ vector: board.W2k[j], names: null })],
    board.hidden && ["tanh(W₁q + W₂k)", (j) => ({ vector: board.hidden[j], names: null })],
    ["s", (j) => fmt(board.scores[j], 4)],
    soft && [shift ? `e^((s−${fmt(shift)})/T)` : t.exp, (j) => (board.mask[j] ? fmt(board.exponentials[j], 4) : t.masked)],
    [t.weight, (j) => (board.mask[j] ? fmt(board.weights[j], 4) : `0 (${t.masked})`)],
    [t.weighted_value, (j) => ({ vector: board.weighted_values[j], names: names.values })],
  ].filter(Boolean);
  const best = Math.max(...board.weights);
  const table = (abbreviate) => {
    const cellOf = (value) => {
      if (typeof value === "string") return el("td", { text: value });
      return abbreviate ? vectorCell(value.vector, value.names) : el("td", { class: "vec", text: fmtVector(value.vector, 3, value.names) });
    };
    const headRow = el("tr");
    columns.forEach(([name]) => headRow.append(el("th", { scope: "col", text: name })));
    const body = el("tbody");
    keys.forEach((key, j) => {
      const tr = el("tr", { class: board.mask[j] ? (board.weights[j] === best ? "best" : "") : "masked" }, el("th", { scope: "row", text: key }));
      columns.slice(1).forEach(([name, cell]) => {
        const td = cellOf(cell(j));
        td.dataset.label = name; // a phone writes each row as a card of labelled numbers
        tr.append(td);
      });
      body.append(tr);
    });
    const sumRow = el("tr", {}, el("th", { scope: "row", text: t.sum }));
    const before = columns.length - (soft ? 4 : 3);
    for (let i = 0; i < before; i++) sumRow.append(el("td"));
    if (soft) sumRow.append(el("td", { text: `Σ = ${fmt(board.total, 4)}` }));
    sumRow.append(el("td", { text: fmt(board.weights.reduce((a, b) => a + b, 0), 4) }));
    const output = cellOf({ vector: board.output, names: names.values });
    output.classList.add("output");
    output.prepend(`${t.output} = `);
    sumRow.append(output);
    return el("table", { class: "arith" }, el("thead", {}, headRow), body, el("tfoot", {}, sumRow));
  };
  const wasOpen = Boolean(slot.querySelector("details.table[open]"));
  const whole = el("details", { class: "table", open: wasOpen }, el("summary", { text: t.every_number }));
  const fillWhole = () => {
    if (whole.open && !whole.querySelector("table")) whole.append(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": t.every_number }, table(false)));
  };
  whole.addEventListener("toggle", fillWhole);
  fillWhole();
  const region = el("div", { class: "scroll fit", tabindex: "0", role: "region", "aria-label": t.arithmetic }, table(true));
  if (norms) region.append(normTable(board, keys, t));
  slot.replaceChildren(...lines, region, whole);
}

/**
 * Weight × value norm of the step (Kobayashi et al. 2020), a table of its own under the arithmetic: each key's weight,
 * the length of its value after the head's rows of W_O, the product and its share of the step's total.
 */
function normTable(board, keys, t) {
  const columns = [
    [t.weight, (j) => board.weights[j]],
    [t.value_norm, (j) => board.value_norms[j]],
    [t.contribution, (j) => board.contributions[j]],
    [t.contribution_share, (j) => board.contribution_shares[j]],
  ];
  const headRow = el("tr", {}, el("th", { scope: "col", text: t.key }));
  columns.forEach(([name]) => headRow.append(el("th", { scope: "col", text: name })));
  const best = Math.max(...board.contributions);
  const body = el("tbody");
  keys.forEach((key, j) => {
    const tr = el("tr", { class: board.contributions[j] === best ? "best" : "" }, el("th", { scope: "row", text: key }));
    columns.forEach(([name, value]) => tr.append(el("td", { text: fmt(value(j), 4), "data-label": name })));
    body.append(tr);
  });
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  const sumRow = el("tr", {}, el("th", { scope: "row", text: t.sum }), el("td"), el("td"),
    el("td", { text: `Σ = ${fmt(sum(board.contributions), 4)}` }), el("td", { text: fmt(sum(board.contribution_shares), 4) }));
  return el("table", { class: "arith arith-norms" }, el("caption", { text: t.norm_arithmetic }), el("thead", {}, headRow),
    body, el("tfoot", {}, sumRow));
}

const LABELLED_BARS = 10; // with many keys, the bars are ranked and only the largest ones carry their word

/**
 * The weights of one step as bars: the seed's "(Tom, 0.3) (Chase, 0.2) (Jerry, 0.5)" picture, drawn at
 * the panel's width with type of `font` px. With many keys the bars are ranked, the largest named and
 * the rest drawn thin without names (every weight is in the pairs below and in the stage 2 table).
 */
export function bars(slot, { labels: given, values: weights, font = 14, width = 600, height = null, ranked = false, many = false, fill = false, t }) {
  const order = given.map((_, j) => j);
  if (ranked || many) order.sort((a, b) => weights[b] - weights[a] || a - b); // largest first, ties in sentence order
  const labels = order.map((j) => given[j]);
  const values = order.map((j) => weights[j]);
  const labelled = many ? Math.min(LABELLED_BARS, labels.length) : labels.length;
  const usable = Math.max(width - 20, font * 4);
  const tail = labels.length - labelled;
  const labelledShare = tail ? 0.7 : 1; // the unnamed bars share the rest of the width
  const widest = fill ? usable : font * 6; // a slide's bars spread over the whole screen
  const labelWidth = Math.max(...labels.slice(0, labelled).map((label) => textUnits(label))) * font;
  const fits = (w) => labelWidth <= w - 4;
  let barWidth = Math.max(font * 1.6, Math.min(widest, (usable * labelledShare) / labelled));
  const rotate = !fits(barWidth);
  // a slanted label reaches left of its bar's middle: the first one needs that much room before it
  const lead = rotate ? Math.max(10, Math.min(labelWidth, font * 8) * 0.8 + font - barWidth / 2) : 10;
  if (rotate) barWidth = Math.max(font * 1.6, Math.min(widest, (usable * labelledShare - lead + 10) / labelled));
  const thinWidth = tail ? Math.max(1, Math.min(barWidth, (usable - lead + 10 - labelled * barWidth) / tail)) : 0;
  const bottom = (rotate ? Math.min(labelWidth, font * 8) * 0.75 : 0) + font + 12;
  const chartHeight = Math.max(font * 4, (height || font * 12 + bottom + font + 8) - bottom - font - 8);
  const svgWidth = lead + 10 + labelled * barWidth + tail * thinWidth;
  const svgHeight = chartHeight + bottom + font + 8;
  const root = svg("svg", { viewBox: `0 0 ${svgWidth} ${svgHeight}`, width: svgWidth, height: svgHeight, role: "img",
    "aria-label": labels.map((l, j) => `${l} ${fmt(values[j], 2)}`).join(", ") });
  const base = font + 8 + chartHeight;
  const best = values.indexOf(Math.max(...values));
  values.forEach((v, j) => {
    const isLabelled = j < labelled;
    const x = lead + (isLabelled ? j * barWidth : labelled * barWidth + (j - labelled) * thinWidth);
    const w = isLabelled ? barWidth : thinWidth;
    const h = Math.max(0, v) * chartHeight;
    const gap = w > 8 ? 3 : 0;
    root.append(svg("rect", { x: x + gap, y: base - h, width: Math.max(0.5, w - 2 * gap), height: h, class: j === best ? "bar best" : "bar" }));
    if (!isLabelled) return;
    root.append(svg("text", { x: x + w / 2, y: base - h - 4, "text-anchor": "middle", "font-size": font * 0.8, class: "bar-value" }, fmt(v, 2)));
    root.append(svg("text", { x: x + w / 2, y: base + font + 2, "font-size": font, class: "bar-label",
      "text-anchor": rotate ? "end" : "middle", transform: rotate ? `rotate(-45 ${x + w / 2} ${base + font + 2})` : "" }, labels[j]));
  });
  if (tail) {
    const x = lead + labelled * barWidth + (tail * thinWidth) / 2;
    root.append(svg("text", { x, y: base + font + 2, "text-anchor": "middle", "font-size": font * 0.8, class: "bar-label" },
      t.more_keys.replace("{count}", String(tail))));
  }
  slot.replaceChildren(root);
}

/**
 * Query tokens and key tokens in two rows, joined by lines whose thickness follows the weight. A picture
 * wider than its panel scrolls, and is scrolled so that the current query is in view.
 */
export function alignment(slot, { queries, keys, weights, step, font = 15, height = null, queryOnTop, label }) {
  const longest = Math.max(queries.length, keys.length);
  const natural = Math.max(...[queries, keys].map((words) => words.reduce((sum, w) => sum + Math.max(3, textUnits(w, 0.62)) * font, 0)));
  const gap = Math.max(font * 0.9, Math.min(font * 5, (slot.clientWidth - 30 - natural) / longest)); // spread to the width
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
  const pictureHeight = Math.max(font * 6, height || font * 11);
  const yTop = font + 6;
  const yBottom = pictureHeight - 10;
  const root = svg("svg", { viewBox: `0 0 ${width} ${pictureHeight}`, width, height: pictureHeight, role: "img", class: "align-svg", "aria-label": label });
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
      "stroke-width": font * 0.6 * w + 0.5,
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
  const scrolls = width > slot.clientWidth;
  if (scrolls) slot.scrollLeft = Math.max(0, qx[step] - slot.clientWidth / 2);
  // a picture wider than its box scrolls: the keyboard reaches it too (a region with a name, in the tab order)
  for (const [name, value] of [["tabindex", "0"], ["role", "region"], ["aria-label", label]]) {
    if (scrolls) slot.setAttribute(name, value);
    else slot.removeAttribute(name);
  }
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

/**
 * Every head as a small weight map (the answer's `overview`: bytes 0..255 per cell), one row per layer:
 * the teaching engine's heads (one layer) or a real model's layers × heads. Choosing one makes it current.
 */
export function overviewGrid(slot, { overview, layer, head, onPick, t }) {
  const table = el("table", { class: "model-grid" });
  const top = el("tr", {}, el("th", { scope: "col", text: overview.layers > 1 ? `${t.layer} \\ ${t.head}` : t.head }));
  // the teaching engine's heads are counted from 1 (Head 1 is head=0), a real model's from 0, as its papers do
  const number = (h) => (overview.layers > 1 ? h : h + 1);
  overview.maps[0].forEach((_, h) => top.append(el("th", { scope: "col", text: String(number(h)) })));
  table.append(el("thead", {}, top));
  const body = el("tbody");
  overview.maps.forEach((row, l) => {
    const tr = el("tr", {}, el("th", { scope: "row", text: overview.layers > 1 ? String(l) : "" }));
    row.forEach((encoded, h) => {
      const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
      const canvas = el("canvas", { width: overview.cols, height: overview.rows, "aria-hidden": "true" });
      const ctx = canvas.getContext("2d");
      const image = ctx.createImageData(overview.cols, overview.rows);
      bytes.forEach((w, i) => image.data.set([255 - w, 255 - w, 255, 255], i * 4));
      ctx.putImageData(image, 0, 0);
      const name = overview.layers > 1 ? `${t.layer} ${l}, ${t.head} ${h}` : `${t.head} ${number(h)}`;
      const chosen = l === layer && h === head;
      const button = el("button", { type: "button", class: "map-button", "aria-pressed": chosen ? "true" : "false",
        "aria-label": name, title: name }, canvas);
      button.addEventListener("click", () => onPick(l, h));
      tr.append(el("td", {}, button));
    });
    body.append(tr);
  });
  table.append(body);
  slot.replaceChildren(table);
}

// A grid of more cells than this is written when it comes within a screen of being seen: a 64-dimensional head's
// matrices are 19,200 cells, about 0.45 s of a page load's work in Chromium for a panel far below the first screen.
const LAZY_CELLS = 2000;

/**
 * A matrix as a table whose cells are shaded by value (blue positive, red negative), numbers written in. A large one
 * is written when the reader scrolls near it (LAZY_CELLS); its box keeps about the table's height until then.
 */
export function matrixGrid({ name, rows, cols, z, skipZeroRows = true, t }) {
  const kept = z.map((row, i) => [row, i]).filter(([row]) => !skipZeroRows || row.some((x) => x !== 0));
  const scroll = el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": name }); // wide: keys scroll it
  const write = () => scroll.replaceChildren(gridTable(name, rows, cols, kept));
  if (kept.length * cols.length <= LAZY_CELLS) write();
  else {
    scroll.style.minHeight = `${(kept.length + 2) * 1.6}em`; // about the rows' height: nothing below jumps when written
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      write();
      scroll.style.minHeight = "";
    }, { rootMargin: "100% 0px" });
    observer.observe(scroll);
  }
  const parts = [scroll];
  if (kept.length < z.length) parts.push(el("p", { class: "stage-help", text: t.zero_rows_hidden.replace("{count}", String(z.length - kept.length)) }));
  return el("figure", { class: "matrix" }, ...parts);
}

/** The kept rows ([row, index]) of a matrix as a table, its caption the matrix's name. */
function gridTable(name, rows, cols, kept) {
  const largest = Math.max(1e-12, ...kept.flatMap(([row]) => row.map(Math.abs)));
  const table = el("table", { class: "grid" }, el("caption", { text: name }));
  const head = el("tr", {}, el("th", { scope: "col", text: "" }));
  cols.forEach((c) => head.append(el("th", { scope: "col", text: c })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const [row, i] of kept) {
    const tr = el("tr", {}, el("th", { scope: "row", text: rows[i] }));
    row.forEach((x) => {
      const cell = el("td", { text: fmt(x, 2) });
      const strength = Math.abs(x) / largest;
      cell.style.background = x >= 0 ? `rgba(59, 82, 139, ${0.75 * strength})` : `rgba(215, 38, 61, ${0.75 * strength})`;
      if (strength > 0.55) cell.classList.add("strong");
      tr.append(cell);
    });
    body.append(tr);
  }
  table.append(body);
  return table;
}
