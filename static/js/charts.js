// Plotly charts: heatmaps of the three stages and of the input vectors. Plotly comes from the app
// (no CDN). Three layers are laid over Plotly's plot area, placed from the chart's current geometry
// after every Plotly draw: the current step's outline (so a step never redraws the cells), the cell
// values and the colour scale (Plotly's own per-cell text and colour bar were over half a redraw).
import { fmt, textUnits } from "./format.js";

export const MANY = 24; // above this many rows or columns a heatmap is large: no values, thinned labels
const MIN_VALUE_FONT = 10; // px: values smaller than this are left to the data table
const MIN_PROJECTED_FONT = 14; // px: the same in presentation mode, read from the back of a room
const MIN_GAPPED_CELL = 4; // px: columns narrower than this are drawn without a gap between them

/** A cell's value in at most two decimals (0.0076 → 0.01, 6.812 → 6.81): when the usual digits do not fit. */
const compact = (x) => String(Number(x.toFixed(Math.abs(x) >= 10 ? 1 : 2)));

const COLORSCALE = "Viridis"; // perceptually uniform and colour-blind safe
const CONFIG = { displayModeBar: false, responsive: false }; // sizes come from the page (ResizeObserver)
const SVG = "http://www.w3.org/2000/svg";

/** Plotly reads <b>, <a href>, &entities; in labels as markup: user words must be shown as typed. */
function plain(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function theme(dark) {
  return dark
    ? { paper: "#000000", ink: "#ffffff", plot: "#333333" }
    : { paper: "#ffffff", ink: "#1a1a1a", plot: "#eeeeee" };
}

/** The smallest of 1, 2, 5, 10, 20, 50... that is at least `n`: labels every so many items. */
function niceStride(n) {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= n);
}

/** Label every `stride`-th item (all of them when they fit). */
function ticks(labels, stride, text = (label) => plain(label)) {
  const shown = labels.map((_, i) => i).filter((i) => i % stride === 0);
  return { tickvals: shown, ticktext: shown.map((i) => text(labels[i], i)) };
}

const widest = (labels, font) => Math.max(2, ...labels.map((label) => textUnits(label))) * font;

/**
 * The geometry of a heatmap: margins, cell sizes, which labels are written and whether the values fit in
 * the cells. `height` is a budget (null: as tall as the cells need); `fill` lets the cells grow to it.
 * `dims` names a column axis of unnamed dimensions (d0, d1...): it is summarised by numbers, not labelled.
 */
function geometry({ rows, cols, width, height, fill, font, dims, valueWidth, scaleLabels = [], minValueFont = MIN_VALUE_FONT }) {
  const many = rows.length > MANY || cols.length > MANY;
  const thin = (count, cell, need) => (count > MANY ? niceStride(Math.ceil(need / cell)) : 1); // thinned only when many
  const left = Math.min(width * 0.3, widest(rows, font) + 18);
  // room for the colour scale and its numbers (drawScale: a bar and its labels in 0.8 of the type, 8 px from the cells)
  const colorbar = Math.max(font * 3.6 + 12, 8 + font * 0.8 * (1.6 + Math.max(...scaleLabels.map((s) => textUnits(s)), 0)) + 4);
  const plotWidth = Math.max(40, width - left - colorbar);
  const cellW = plotWidth / cols.length;
  const summarise = Boolean(dims) && cols.length > 16;
  const labelWidth = widest(cols, font);
  const rotate = !summarise && labelWidth > cellW - 4;
  // Labels wider than their column are slanted; where slanted ones would touch (they stand cellW·sin 45° apart),
  // upright; where even upright ones would touch, every so many is written.
  const line = font * 1.2;
  let strideX = 1;
  let angle = 0;
  if (summarise) strideX = niceStride(Math.ceil((font * 4) / cellW));
  else if (rotate && cellW * Math.SQRT1_2 >= line) angle = -45;
  else if (rotate) [angle, strideX] = [-90, cellW >= line ? 1 : niceStride(Math.ceil((font * 1.3) / cellW))];
  const slanted = angle === -90 ? labelWidth : labelWidth * 0.72 + font;
  const bottom = summarise ? font * 3.4 + 12 : rotate ? Math.min(width * 0.35, slanted) + 12 : font * 1.6 + 12;
  const top = 8;
  const natural = rows.length > MANY ? Math.max(2, Math.min(cellW, font * 2.4, 1000 / rows.length)) : font * 2.4;
  const room = height ? (height - bottom - top) / rows.length : Infinity;
  const cellH = Math.max(2, fill && Number.isFinite(room) ? Math.min(room, Math.max(natural, cellW), font * 5) : Math.min(natural, room));
  const strideY = thin(rows.length, cellH, font * 1.2);
  const valueFont = Math.floor(Math.min(font * 0.85, cellH / 1.3, (cellW - 6) / valueWidth)); // smaller in small cells
  const values = !many && valueFont >= minValueFont;
  return { left, right: colorbar, bottom, top, cellW, cellH, angle, summarise, strideX, strideY, values, valueFont, height: rows.length * cellH + bottom + top };
}

/**
 * Cells too small for numbers still show which keys are hidden: a × alone fits where "0.25" does not.
 * Returns {text, font} (empty strings for the visible cells) or null when even a × would be too small.
 */
function hiddenMarks(mask, g, font, width, count, minFont) {
  const cellW = Math.max(40, width - g.left - g.right) / count;
  const size = Math.floor(Math.min(font * 0.85, g.cellH / 1.2, cellW / 0.8));
  if (size < minFont || !mask.some((row) => row.some((visible) => !visible))) return null;
  return { text: mask.map((row) => row.map((visible) => (visible ? "" : "×"))), font: size };
}

/**
 * A heatmap with numeric axes (repeated words stay separate rows), token labels (thinned when they would
 * overlap), values written over the cells when they fit, the current step's row outlined, and cells
 * hidden by the mask left blank with ×. Sizes: `width` and `font` in px, `height` a budget or null.
 */
export function heatmap(el, { z, rows, cols, step = null, mask = null, zmin, zmax, dark = false, font = 14, width,
  height = null, fill = false, dims = null }) {
  // The same picture as the one on the screen (a new view from the server that did not change this chart: another
  // head's view leaves the input vectors and the rollout as they were) is not drawn again: only the outline moves.
  const picture = JSON.stringify([z, rows, cols, mask, zmin, zmax, dark, font, width, height, fill, dims]);
  if (el.picture === picture && el._fullLayout) {
    moveOutline(el, step);
    return Promise.resolve();
  }
  el.picture = picture;
  const t = theme(dark);
  const few = rows.length <= MANY && cols.length <= MANY;
  const texts = (write) => (few ? z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? "×" : write(x)))) : null);
  const widthOf = (text) => (text ? Math.max(2, ...text.flat().map((s) => textUnits(s))) : Infinity);
  const minValueFont = dark || fill ? MIN_PROJECTED_FONT : MIN_VALUE_FONT; // projected, or a slide (fills its panel)
  let text = texts((x) => fmt(x, 2));
  let [low, high] = [Infinity, -Infinity]; // the visible cells' range, as Plotly reads it when zmin or zmax is not given
  z.forEach((row, i) => row.forEach((x, j) => {
    if (Number.isFinite(x) && !(mask && !mask[i][j])) [low, high] = [Math.min(low, x), Math.max(high, x)];
  }));
  [low, high] = [zmin ?? low, zmax ?? high];
  const scaleLabels = [high, (low + high) / 2, low].map((x) => fmt(x, 2)); // drawScale's numbers
  let g = geometry({ rows, cols, width, height, fill, font, dims, valueWidth: widthOf(text), scaleLabels, minValueFont });
  if (few && !g.values) { // two decimals take less room than two significant digits (0.0076, 2.6e-5)
    const shorter = texts(compact);
    const h = geometry({ rows, cols, width, height, fill, font, dims, valueWidth: widthOf(shorter), scaleLabels, minValueFont });
    if (h.values) [text, g] = [shorter, h];
  }
  const marks = g.values || !mask ? null : hiddenMarks(mask, g, font, width, cols.length, minValueFont);
  const shown = z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? null : x)));
  const data = [{
    type: "heatmap", z: shown, x: cols.map((_, j) => j), y: rows.map((_, i) => i),
    zmin, zmax, colorscale: COLORSCALE, hoverongaps: false,
    // thin cells: gaps would hide the pattern (256 columns in 200 px were grey with a few coloured lines)
    xgap: g.cellH >= 12 && g.cellW >= MIN_GAPPED_CELL ? 1 : 0, ygap: g.cellH >= 12 ? 1 : 0,
    showscale: false, // drawn by drawScale; the exported image has Plotly's own colour bar
    colorbar: { thickness: Math.round(font * 0.8), tickfont: { size: Math.round(font * 0.8), color: t.ink } },
    hovertemplate: "%{customdata}<extra></extra>",
    customdata: z.map((row, i) => row.map((x, j) => plain(`${rows[i]} → ${cols[j]}: ${fmt(x, 4)}`))),
  }];
  // ticklabeloverflow "allow": the labels are laid out here, and Plotly's check of each label's box was a third of a redraw
  const axis = { tickfont: { size: font, color: t.ink }, showgrid: false, zeroline: false, fixedrange: true, ticks: "",
    ticklabelstandoff: 4, ticklabeloverflow: "allow" };
  const xTicks = g.summarise ? ticks(cols, g.strideX, (_, i) => String(i)) : ticks(cols, g.strideX);
  const layout = {
    width, height: g.height,
    margin: { l: g.left, r: g.right, t: g.top, b: g.bottom },
    xaxis: { ...axis, ...xTicks, side: "bottom", tickangle: g.angle,
      title: g.summarise ? { text: plain(dims), font: { size: font, color: t.ink }, standoff: 4 } : undefined },
    yaxis: { ...axis, ...ticks(rows, g.strideY), autorange: "reversed" },
    paper_bgcolor: t.paper, plot_bgcolor: t.plot,
  };
  el.heatmapValues = marks
    ? { text: marks.text, font: marks.font, ink: t.ink, scaleFont: Math.round(font * 0.8) }
    : { text: g.values ? text : null, font: g.valueFont, ink: t.ink, scaleFont: Math.round(font * 0.8) };
  el.rowLabels = g.strideY > 1 ? { rows, font, ink: t.ink, paper: t.paper } : null; // thinned: the step's own label
  el.dataset.step = step === null || step === undefined ? "" : String(step);
  return Plotly.react(el, data, layout, CONFIG).then(() => {
    if (!el.dataset.watched) {
      el.on("plotly_afterplot", () => decorate(el)); // any later relayout moves the layers with the cells
      el.dataset.watched = "true";
    }
    decorate(el);
  }, (error) => {
    el.picture = null; // not drawn: the next call draws whatever it is asked
    throw error;
  });
}

/** The plot area of a drawn chart in px (left, top, width, height), or null before the first draw. */
function plotArea(el) {
  const size = el._fullLayout && el._fullLayout._size;
  return size ? { l: size.l, t: size.t, w: size.w, h: size.h } : null;
}

function rowCount(el) {
  return el.data && el.data[0] && el.data[0].y ? el.data[0].y.length : 0;
}

/** Lay the outline and the values over the chart's current plot area. */
function decorate(el) {
  moveOutline(el, el.dataset.step === "" ? null : Number(el.dataset.step));
  drawValues(el);
  drawScale(el);
}

/**
 * Outline the current step's row with a box laid over the chart (the chart itself is not redrawn:
 * moving a Plotly shape redraws every cell). The box sits in the chart's wrapper, on Plotly's plot area.
 */
export function moveOutline(el, step) {
  const box = el.parentElement && el.parentElement.querySelector(".outline");
  if (!box) return;
  el.dataset.step = step === null || step === undefined ? "" : String(step);
  const size = plotArea(el);
  const rows = rowCount(el);
  if (step === null || step === undefined || !size || !rows || step >= rows) {
    box.hidden = true;
    return;
  }
  const rowHeight = size.h / rows;
  Object.assign(box.style, {
    left: `${size.l - 3}px`, width: `${size.w + 6}px`,
    top: `${size.t + step * rowHeight - 3}px`, height: `${rowHeight + 6}px`,
  });
  box.hidden = false;
  labelRow(el, step, size.t + (step + 0.5) * rowHeight, size.l);
}

/**
 * With thinned row labels the outlined row may have no label of its own, and the nearest one names another
 * word: the step's word is written beside its row, and the thinned labels it would touch are hidden.
 */
function labelRow(el, step, middle, right) {
  const wrap = el.parentElement;
  let label = wrap.querySelector(".row-label");
  const ticks = [...el.querySelectorAll(".ytick text")];
  ticks.forEach((tick) => { tick.style.visibility = ""; });
  const rows = el.rowLabels;
  if (!rows || step === null || step >= rows.rows.length) {
    if (label) label.hidden = true;
    return;
  }
  if (!label) {
    label = document.createElement("div");
    label.className = "row-label";
    label.setAttribute("aria-hidden", "true");
    wrap.append(label);
  }
  label.textContent = rows.rows[step];
  Object.assign(label.style, { right: `${wrap.clientWidth - right + 4}px`, top: `${middle}px`, fontSize: `${rows.font}px`,
    color: rows.ink, background: rows.paper });
  label.hidden = false;
  const own = label.getBoundingClientRect();
  for (const tick of ticks) {
    const r = tick.getBoundingClientRect();
    if (r.bottom > own.top - 2 && r.top < own.bottom + 2) tick.style.visibility = "hidden";
  }
}

/** Viridis is dark at its low end and bright at its high end: dark text from about the middle up. */
function textColour(x, zmin, zmax) {
  const share = zmax > zmin ? (x - zmin) / (zmax - zmin) : 0;
  return share >= 0.55 ? "#000000" : "#ffffff";
}

/**
 * The cell values as one SVG laid over the plot area (hidden from assistive technology: the data table
 * below the chart has every value). Only when they fit; masked cells get ×.
 */
function drawValues(el) {
  const layer = el.parentElement && el.parentElement.querySelector(".cell-values");
  const values = el.heatmapValues;
  const size = plotArea(el);
  if (!layer) return;
  if (!values || !values.text || !size) {
    layer.replaceChildren();
    layer.setAttribute("hidden", "");
    return;
  }
  const trace = el._fullData && el._fullData[0];
  const [zmin, zmax] = trace ? [trace.zmin, trace.zmax] : [0, 1];
  const z = el.data[0].z;
  const rows = values.text.length;
  const cols = values.text[0].length;
  const w = size.w / cols;
  const h = size.h / rows;
  Object.assign(layer.style, { left: `${size.l}px`, top: `${size.t}px` });
  layer.setAttribute("width", String(size.w));
  layer.setAttribute("height", String(size.h));
  layer.setAttribute("viewBox", `0 0 ${size.w} ${size.h}`);
  const texts = [];
  values.text.forEach((row, i) => row.forEach((label, j) => {
    if (!label) return;
    const x = z[i][j];
    const node = document.createElementNS(SVG, "text");
    node.setAttribute("x", String((j + 0.5) * w));
    node.setAttribute("y", String((i + 0.5) * h));
    node.setAttribute("fill", x === null ? values.ink : textColour(x, zmin, zmax));
    node.textContent = label;
    texts.push(node);
  }));
  layer.setAttribute("font-size", String(values.font));
  layer.replaceChildren(...texts);
  layer.removeAttribute("hidden");
}

/**
 * The colour scale beside the plot area: a gradient of the trace's colours from its lowest value (bottom)
 * to its highest (top), with both ends and the middle written beside it.
 */
function drawScale(el) {
  const scale = el.parentElement && el.parentElement.querySelector(".scale");
  const trace = el._fullData && el._fullData[0];
  const size = plotArea(el);
  if (!scale || !trace || !size) return;
  const font = el.heatmapValues.scaleFont;
  const stops = trace.colorscale.map(([at, colour]) => `${colour} ${(at * 100).toFixed(1)}%`).join(", ");
  const bar = document.createElement("div");
  bar.className = "scale-bar";
  Object.assign(bar.style, { width: `${font}px`, background: `linear-gradient(to top, ${stops})` });
  const labels = document.createElement("div");
  labels.className = "scale-labels";
  for (const x of [trace.zmax, (trace.zmin + trace.zmax) / 2, trace.zmin]) {
    const label = document.createElement("span");
    label.textContent = fmt(x, 2);
    labels.append(label);
  }
  Object.assign(scale.style, { left: `${size.l + size.w + 8}px`, top: `${size.t}px`, height: `${size.h}px`, fontSize: `${font}px` });
  scale.replaceChildren(bar, labels);
  scale.hidden = false;
}

/**
 * The chart as a figure for image export: the values written in the cells by Plotly (when they fit on
 * screen) and the current step's row outlined as a shape, so the PNG says what the screen says.
 */
export function exportFigure(el) {
  const values = el.heatmapValues;
  const trace = { ...el.data[0], showscale: true };
  if (values && values.text) Object.assign(trace, { text: values.text, texttemplate: "%{text}", textfont: { size: values.font } });
  const layout = { ...el.layout };
  const step = el.dataset.step === "" ? null : Number(el.dataset.step);
  if (step !== null && step < rowCount(el)) {
    const mark = getComputedStyle(el.parentElement.querySelector(".outline")).borderTopColor;
    layout.shapes = [{ type: "rect", xref: "paper", yref: "y", x0: 0, x1: 1, y0: step - 0.5, y1: step + 0.5,
      line: { color: mark, width: 4 } }];
  }
  return { data: [trace], layout, config: { ...CONFIG, staticPlot: true } };
}

export function downloadPng(el, filename) {
  return Plotly.downloadImage(exportFigure(el), { format: "png", filename, scale: 2 });
}
