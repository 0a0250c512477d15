// The compare page: two views side by side and the word they share. The server computes both panes and
// the comparison (/api/compare); this module draws them and turns keys and edits into new links.
import { heatmap, moveOutline } from "./charts.js";
import { toggleHelp, wireChrome } from "./chrome.js";
import { fmt } from "./format.js";
import { bars, el } from "./panels.js";
import * as state from "./compare-state.js";

const { page } = state;
const t = page.strings;
const $ = (id) => document.getElementById(id);
const PANES = page.panes; // "a" and "b": a pane's parameters carry its name as a prefix (a.source)
const TYPING_PAUSE_MS = 300;

/** A pane's settings in a few words: what differs from a plain view is what a class needs to know. */
function settingsText(view) {
  const p = view.params;
  const parts = [];
  if (view.model) parts.push(`${view.model.label} · ${t.layer} ${p.layer} · ${t.head} ${p.head}`);
  else parts.push(`${t.score}${t.colon}${t[`score_${p.score}`] || p.score}`, `${t.temperature}${t.colon}${fmt(p.temperature)}`);
  if (p.target) parts.push(`${t.target}${t.colon}${p.target}`);
  return parts.join(" · ");
}

function drawPane(name, view, word, present) {
  const step = view.params.step;
  $(`source-${name}`).value = view.params.source;
  $(`settings-${name}`).textContent = settingsText(view);
  $(`open-${name}`).setAttribute("href", view.share_path);
  const chart = $(`chart-${name}`);
  const font = (node) => parseFloat(getComputedStyle(node).fontSize); // type sizes come from the CSS
  heatmap(chart, {
    z: view.head.weights, rows: view.tokens.queries, cols: view.tokens.keys, mask: view.head.mask,
    zmin: 0, zmax: state.body().weights_max, step, dark: present, font: font(chart), width: chart.clientWidth,
  });
  const row = view.head.weights[step];
  const slot = $(`bars-${name}`);
  bars(slot, { labels: view.tokens.keys, values: row, font: font(slot), width: slot.clientWidth, ranked: true, t });
  const top = word ? word.top[name] : [];
  $(`top-${name}`).textContent = top.map((k) => `(${k.key}, ${fmt(k.weight, 2)})`).join(" ");
  $(`pane-${name}`).classList.toggle("active", state.body().params.pane === name);
}

function drawComparison(body, present) {
  const word = body.word;
  const focus = $("focus");
  focus.replaceChildren(...body.shared.map((w) => el("option", { value: w, text: w, selected: w === body.focus })));
  if (!word) {
    $("output-similarity").textContent = t.no_shared_word;
    $("differing").replaceChildren();
    $("chart-drift").replaceChildren();
    return;
  }
  $("output-similarity").textContent = word.output_cosine === null ? "" : `${t.output_cosine}${t.colon}${fmt(word.output_cosine, 3)}`;
  const label = (name) => (t.feature_names && t.feature_names[name]) || name;
  const table = el("table", { class: "data" }, el("caption", { text: t.differing }));
  const head = el("tr", {}, el("th", { scope: "col", text: "" }), el("th", { scope: "col", text: `${t.pane} A` }),
    el("th", { scope: "col", text: `${t.pane} B` }));
  const rows = word.differing.map((d) => el("tr", {}, el("th", { scope: "row", text: label(d.name) }),
    el("td", { text: fmt(d.a, 3) }), el("td", { text: fmt(d.b, 3) })));
  table.append(el("thead", {}, head), el("tbody", {}, ...rows));
  $("differing").replaceChildren(table);
  const drift = $("chart-drift");
  if (!word.drift) {
    drift.hidden = true;
    return;
  }
  drift.hidden = false;
  const ink = present ? "#ffffff" : "#1a1a1a";
  Plotly.react(drift, [{ type: "scatter", mode: "lines+markers", x: word.drift.map((_, i) => i), y: word.drift,
    hovertemplate: "%{x}: %{y:.3f}<extra></extra>" }], {
    height: 260, margin: { l: 60, r: 10, t: 30, b: 50 }, title: { text: t.drift, font: { size: present ? 22 : 14, color: ink } },
    xaxis: { title: { text: t.layer_axis }, dtick: 1, color: ink }, yaxis: { title: { text: "cos" }, range: [Math.min(0, ...word.drift), 1.02], color: ink },
    paper_bgcolor: present ? "#000000" : "#ffffff", plot_bgcolor: present ? "#333333" : "#eeeeee",
  }, { displayModeBar: false, responsive: true });
}

function render() {
  const body = state.body();
  const present = Boolean(body.params.present);
  document.body.classList.toggle("present", present);
  $("present-toggle").setAttribute("aria-pressed", String(present));
  for (const name of PANES) drawPane(name, body.panes[name], body.word, present);
  drawComparison(body, present);
  const preset = page.presets.find((p) => p.link === body.share_path);
  $("preset").value = preset ? preset.id : "";
  $("lesson").textContent = preset ? preset.lesson : "";
  $("api-link").setAttribute("href", `${page.routes.api_compare}?${state.query()}`);
  document.body.dataset.ready = "true";
}

async function go(search, options) {
  document.body.dataset.ready = "false";
  const result = await state.load(search, options);
  if (result.aborted) return;
  for (const name of PANES) $(`error-${name}`).textContent = "";
  if (!result.ok) {
    const field = Array.isArray(result.body.detail) ? result.body.detail[0].field : "";
    const slot = $(`error-${PANES.find((name) => field.startsWith(`${name}.`)) || PANES[0]}`);
    slot.textContent = result.body.message;
    document.body.dataset.ready = "true";
    return;
  }
  render();
}

/** ← →: both panes move to the previous or next word the sentences share. */
function moveFocus(delta) {
  const body = state.body();
  const shared = body.shared;
  if (!shared.length) return;
  const index = Math.max(0, shared.indexOf(body.focus));
  const next = shared[Math.min(shared.length - 1, Math.max(0, index + delta))];
  if (next !== body.focus) go(state.withChanges({ focus: next }));
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const inControl = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
  const onFocusable = event.target.closest && event.target.closest("button, a[href], summary, [tabindex='0']");
  if (event.key === "Tab" && !inControl && !onFocusable) { // on a button or link, Tab moves the focus on as usual
    event.preventDefault();
    const other = PANES.find((name) => name !== state.body().params.pane);
    go(state.withChanges({ pane: other }), { push: false }).then(() => $(`pane-${other}`).focus());
    return;
  }
  if (inControl) return;
  const actions = {
    ArrowLeft: () => moveFocus(-1),
    ArrowRight: () => moveFocus(1),
    p: () => go(state.withChanges({ present: state.body().params.present ? null : "true" }), { push: false }),
    "?": () => toggleHelp(),
    Escape: () => toggleHelp(false),
  };
  actions.P = actions.p;
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

function wire() {
  for (const name of PANES) {
    $(`source-${name}`).addEventListener("input", (event) => {
      const timers = state.timers();
      clearTimeout(timers.typing);
      timers.typing = setTimeout(() => go(state.withChanges({ [`${name}.source`]: event.target.value })), TYPING_PAUSE_MS);
    });
    $(`pane-${name}`).addEventListener("click", () => {
      if (state.body().params.pane !== name) go(state.withChanges({ pane: name }), { push: false }); // the server leaves a default out of the link
    });
  }
  $("focus").addEventListener("change", (event) => go(state.withChanges({ focus: event.target.value })));
  $("preset").addEventListener("change", (event) => {
    const preset = page.presets.find((p) => p.id === event.target.value);
    if (!preset) return;
    const query = new URLSearchParams(preset.link.split("?")[1] || "");
    if (state.body().params.present) query.set("present", "true"); // an example keeps the screen's mode
    go(query.toString());
  });
  wireChrome({
    t,
    sharePath: () => state.body().share_path,
    pathWithLanguage: (lang) => `${page.routes.compare}?${state.withChanges({ lang })}`,
    togglePresent: () => go(state.withChanges({ present: state.body().params.present ? null : "true" }), { push: false }),
  });
  window.addEventListener("popstate", () => go(location.search.slice(1), { push: false }));
  document.addEventListener("keydown", onKey);
  // Charts are drawn at their box's width: when the panes change width (P, F, a resize, a phone
  // turned), draw them again; a change of height alone only moves the outlines.
  let drawnWidth = document.querySelector(".panes").clientWidth;
  new ResizeObserver(() => {
    const width = document.querySelector(".panes").clientWidth;
    if (width !== drawnWidth) {
      drawnWidth = width;
      render();
      return;
    }
    for (const name of PANES) moveOutline($(`chart-${name}`), state.body().panes[name].params.step);
  }).observe(document.querySelector(".panes"));
}

wire();
history.replaceState(null, "", state.body().share_path); // the address bar shows the canonical link
render();
