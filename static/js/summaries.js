// A real model summarised: every layer and head coloured by a statistic the user picks (a table whose cells
// are buttons: choosing one opens that head), and attention rollout up to the current layer (a heatmap,
// drawn by main.js with the other charts, at its box's size). The numbers come from the server
// (app/engine/attention/summaries.py); this module only draws them.
import { fmt } from "./format.js";
import { el } from "./panels.js";

/** The statistic's table: rows are layers, columns heads; each cell a button shaded by its value. */
function statisticTable(values, { layer, head, onPick, t, name }) {
  const flat = values.flat();
  const low = Math.min(...flat);
  const high = Math.max(...flat);
  const table = el("table", { class: "grid summary-grid" }, el("caption", { text: t[`summary_${name}`] || name }));
  const top = el("tr", {}, el("th", { scope: "col", text: `${t.layer} \\ ${t.head}` }));
  values[0].forEach((_, h) => top.append(el("th", { scope: "col", text: String(h) })));
  table.append(el("thead", {}, top));
  const body = el("tbody");
  values.forEach((row, l) => {
    const tr = el("tr", {}, el("th", { scope: "row", text: String(l) }));
    row.forEach((value, h) => {
      const strength = high > low ? (value - low) / (high - low) : 0;
      const label = `${t.layer} ${l}, ${t.head} ${h}: ${fmt(value, 3)}`;
      const button = el("button", { type: "button", class: "summary-cell", "aria-label": label, title: label,
        "aria-pressed": l === layer && h === head ? "true" : "false", text: fmt(value, 2) });
      button.style.background = `rgba(59, 82, 139, ${0.85 * strength})`;
      if (strength > 0.55) button.classList.add("strong");
      button.addEventListener("click", () => onPick(l, h));
      tr.append(el("td", {}, button));
    });
    body.append(tr);
  });
  table.append(body);
  return table;
}

/** Draw the summaries of a real-model view; `summary` is the statistic chosen (a view field). */
export function renderSummaries(view, { summary, setSummary, onPick, t }) {
  const summaries = view.summaries;
  document.body.classList.toggle("has-summaries", Boolean(summaries));
  if (!summaries) return;
  const select = document.getElementById("summary");
  if (!select.options.length) {
    for (const name of Object.keys(summaries.statistics)) {
      select.append(el("option", { value: name, text: t[`summary_${name}`] || name }));
    }
    select.addEventListener("change", () => setSummary(select.value));
  }
  select.value = summary;
  const table = statisticTable(summaries.statistics[summary], {
    layer: view.params.layer, head: view.params.head, onPick, t, name: summary,
  });
  document.getElementById("summary-table").replaceChildren(el("div", { class: "scroll" }, table));
  const note = [view.model.label, view.model.units === "words" ? t.units_words_note : null];
  document.getElementById("summaries-note").textContent = note.filter(Boolean).join(" · ");
}
