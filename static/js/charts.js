// Plotly charts: heatmaps of the three stages, the input vectors, and the weights of one step.
// Plotly comes from the installed `plotly` Python package, served by the app (no CDN).
import { fmt } from "./format.js";

/** Plotly reads <b>, <a href>, &entities; in labels as markup: user words must be shown as typed. */
function plain(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const COLORSCALE = "Viridis"; // perceptually uniform and colour-blind safe
const CONFIG = { displayModeBar: false, responsive: true };

function theme(present) {
  return present
    ? { font: 28, cell: 64, paper: "#000000", ink: "#ffffff", mark: "#ff9f1c" }
    : { font: 14, cell: 34, paper: "#ffffff", ink: "#1a1a1a", mark: "#d7263d" };
}

function axis(labels, ink, font) {
  return {
    tickvals: labels.map((_, i) => i),
    ticktext: labels.map(plain),
    tickfont: { size: font, color: ink },
    showgrid: false,
    zeroline: false,
    fixedrange: true,
  };
}

function textWidth(labels, font) {
  return Math.max(2, ...labels.map((label) => [...String(label)].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 1 : 0.6), 0))) * font;
}

/**
 * A heatmap with numeric axes (repeated words stay separate rows), token labels, values written in the
 * cells when they fit, the current step's row outlined, and cells hidden by the mask left blank with ×.
 */
export function heatmap(el, { z, rows, cols, step = null, mask = null, zmin, zmax, present = false, title = "", width }) {
  const t = theme(present);
  const plotWidth = (width || el.clientWidth || 600) - Math.min(320, textWidth(rows, t.font) + 20) - 80;
  const fits = plotWidth / cols.length >= (present ? 70 : 34) && rows.length <= (present ? 16 : 32);
  const shown = z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? null : x)));
  const text = z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? "×" : fits ? fmt(x, 2) : "")));
  const left = Math.min(320, textWidth(rows, t.font) + 20);
  const bottom = Math.min(320, textWidth(cols, t.font) * (cols.length > 6 ? 0.8 : 0.45) + 30);
  const cell = Math.max(present ? 36 : 14, Math.min(t.cell, 600 / Math.max(rows.length, 1)));
  const data = [{
    type: "heatmap", z: shown, x: cols.map((_, j) => j), y: rows.map((_, i) => i),
    zmin, zmax, colorscale: COLORSCALE, text, texttemplate: "%{text}", hoverongaps: false,
    textfont: { size: present ? 24 : 12 }, xgap: 1, ygap: 1,
    colorbar: { thickness: present ? 24 : 12, tickfont: { size: t.font * 0.8, color: t.ink } },
    hovertemplate: "%{customdata}<extra></extra>",
    customdata: z.map((row, i) => row.map((x, j) => plain(`${rows[i]} → ${cols[j]}: ${fmt(x, 4)}`))),
  }];
  const layout = {
    title: title ? { text: plain(title), font: { size: t.font, color: t.ink } } : undefined,
    height: rows.length * cell + bottom + 30,
    margin: { l: left, r: 10, t: title ? 40 : 10, b: bottom },
    xaxis: { ...axis(cols, t.ink, t.font), side: "bottom", tickangle: cols.length > 6 ? -45 : 0 },
    yaxis: { ...axis(rows, t.ink, t.font), autorange: "reversed" },
    paper_bgcolor: t.paper, plot_bgcolor: present ? "#333333" : "#eeeeee",
  };
  return Plotly.react(el, data, layout, CONFIG).then(() => moveOutline(el, step));
}

/**
 * Outline the current step's row with a box laid over the chart (the chart itself is not redrawn:
 * moving a Plotly shape redraws every cell). The box sits in the chart's wrapper, on Plotly's plot area.
 */
export function moveOutline(el, step) {
  const box = el.parentElement && el.parentElement.querySelector(".outline");
  const size = el._fullLayout && el._fullLayout._size; // the plot area: left, top, width, height
  const rows = el.data && el.data[0] && el.data[0].y ? el.data[0].y.length : 0;
  if (!box) return;
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
}

/** The weights of one step as bars: the seed's "(Tom, 0.3) (Chase, 0.2) (Jerry, 0.5)" picture (plain SVG). */
export function bars(el, { labels, values, present = false }) {
  const font = present ? 28 : 14;
  const barWidth = Math.max(present ? 56 : 22, Math.min(90, 900 / Math.max(labels.length, 1)));
  const chartHeight = present ? 300 : 170;
  const labelWidth = Math.max(...labels.map((l) => [...String(l)].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 1 : 0.6), 0))) * font;
  const rotate = labelWidth > barWidth;
  const bottom = (rotate ? labelWidth * 0.75 : 0) + font + 12;
  const width = labels.length * barWidth + 20;
  const height = chartHeight + bottom + font + 8;
  const best = values.indexOf(Math.max(...values));
  const ns = "http://www.w3.org/2000/svg";
  const make = (tag, attributes, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const root = make("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": labels.map((l, j) => `${l} ${fmt(values[j], 2)}`).join(", ") });
  const base = font + 8 + chartHeight;
  values.forEach((v, j) => {
    const x = 10 + j * barWidth;
    const h = Math.max(0, v) * chartHeight;
    root.append(make("rect", { x: x + 3, y: base - h, width: barWidth - 6, height: h, class: j === best ? "bar best" : "bar" }));
    if (labels.length <= 24 || j === best) {
      root.append(make("text", { x: x + barWidth / 2, y: base - h - 4, "text-anchor": "middle", "font-size": font * 0.8, class: "bar-value" }, fmt(v, 2)));
    }
    const label = make("text", { x: x + barWidth / 2, y: base + font + 2, "font-size": font, class: "bar-label",
      "text-anchor": rotate ? "end" : "middle", transform: rotate ? `rotate(-45 ${x + barWidth / 2} ${base + font + 2})` : "" }, labels[j]);
    root.append(label);
  });
  el.replaceChildren(root);
}

export function downloadPng(el, filename) {
  return Plotly.downloadImage(el, { format: "png", filename, scale: 2 });
}
