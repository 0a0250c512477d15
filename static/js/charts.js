// Plotly charts: heatmaps of the three stages and of the input vectors.
// Plotly comes from the installed `plotly` Python package, served by the app (no CDN).
import { fmt, textUnits } from "./format.js";

/** Plotly reads <b>, <a href>, &entities; in labels as markup: user words must be shown as typed. */
function plain(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const COLORSCALE = "Viridis"; // perceptually uniform and colour-blind safe
const CONFIG = { displayModeBar: false, responsive: true };

function theme(present) {
  return present
    ? { font: 28, cell: 64, paper: "#000000", ink: "#ffffff" }
    : { font: 14, cell: 34, paper: "#ffffff", ink: "#1a1a1a" };
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
  return Math.max(2, ...labels.map((label) => textUnits(label))) * font;
}

/**
 * A heatmap with numeric axes (repeated words stay separate rows), token labels, values written in the
 * cells when they fit, the current step's row outlined, and cells hidden by the mask left blank with ×.
 */
export function heatmap(el, { z, rows, cols, step = null, mask = null, zmin, zmax, present = false, width }) {
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
    height: rows.length * cell + bottom + 30,
    margin: { l: left, r: 10, t: 10, b: bottom },
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

export function downloadPng(el, filename) {
  return Plotly.downloadImage(el, { format: "png", filename, scale: 2 });
}
