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
export function heatmap(el, { z, rows, cols, step = null, mask = null, zmin, zmax, present = false, title = "" }) {
  const t = theme(present);
  const plotWidth = (el.clientWidth || 600) - Math.min(320, textWidth(rows, t.font) + 20) - 80;
  const fits = plotWidth / cols.length >= (present ? 70 : 34) && rows.length <= (present ? 16 : 32);
  const shown = z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? null : x)));
  const text = z.map((row, i) => row.map((x, j) => (mask && !mask[i][j] ? "×" : fits ? fmt(x, 2) : "")));
  const left = Math.min(320, textWidth(rows, t.font) + 20);
  const bottom = Math.min(320, textWidth(cols, t.font) * (cols.length > 6 ? 0.8 : 0.45) + 30);
  const cell = Math.max(present ? 36 : 14, Math.min(t.cell, 600 / Math.max(rows.length, 1)));
  const shapes = [];
  if (step !== null && step < rows.length) {
    shapes.push({
      type: "rect", xref: "x", yref: "y", x0: -0.5, x1: cols.length - 0.5, y0: step - 0.5, y1: step + 0.5,
      line: { color: t.mark, width: present ? 6 : 4 },
    });
  }
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
    shapes,
  };
  return Plotly.react(el, data, layout, CONFIG);
}

/** Move the current-step outline of a heatmap drawn by `heatmap` (no redraw of the cells). */
export function moveOutline(el, step) {
  const shapes = el.layout && el.layout.shapes;
  if (!shapes || !shapes.length || shapes[0].y0 === step - 0.5) return;
  Plotly.relayout(el, { "shapes[0].y0": step - 0.5, "shapes[0].y1": step + 0.5 });
}

/** The weights of one step as bars: the seed's "(Tom, 0.3) (Chase, 0.2) (Jerry, 0.5)" picture. */
export function bars(el, { labels, values, present = false }) {
  const t = theme(present);
  const data = [{
    type: "bar", x: labels.map((_, j) => j), y: values, text: values.map((x) => fmt(x, 2)),
    textposition: "outside", textfont: { size: t.font, color: t.ink }, marker: { color: "#3b528b" },
    hovertemplate: "%{customdata}<extra></extra>", customdata: labels.map((label, j) => plain(`${label}: ${fmt(values[j], 4)}`)),
  }];
  const layout = {
    height: present ? 420 : 260,
    margin: { l: 50, r: 10, t: 20, b: Math.min(240, textWidth(labels, t.font) * 0.7 + 30) },
    xaxis: { ...axis(labels, t.ink, t.font), tickangle: labels.length > 6 ? -45 : 0 },
    yaxis: { range: [0, 1.15], fixedrange: true, tickfont: { size: t.font * 0.8, color: t.ink }, gridcolor: present ? "#444" : "#ddd" },
    paper_bgcolor: t.paper, plot_bgcolor: t.paper,
  };
  return Plotly.react(el, data, layout, CONFIG);
}

export function downloadPng(el, filename) {
  return Plotly.downloadImage(el, { format: "png", filename, scale: 2 });
}
