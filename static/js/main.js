// Attention Lens page: start-up and wiring. The URL's query is the state (state.js keeps it); the form
// (controls.js) says what the user typed; the charts (charts.js) and panels (panels.js) draw a view.
import { downloadPng, heatmap, moveOutline } from "./charts.js";
import * as controls from "./controls.js";
import { fmt } from "./format.js";
import { alignment, arithmetic, bars, download, el, matrixGrid, matrixTable, overviewGrid, toCsv } from "./panels.js";
import { setupLive } from "./live-ui.js";
import { renderSummaries } from "./summaries.js";
import * as state from "./state.js";

const { page } = state;
const t = page.strings;
const $ = (id) => document.getElementById(id);
const TYPING_PAUSE_MS = 100; // typing is debounced; choices (selects, checkboxes) apply at once
const PLAY_INTERVAL_MS = 1200;

// ---------------------------------------------------------------- loading views

/** Ask the server for the view the form describes; show its errors beside the controls, or the new view. */
async function recompute(query = controls.formQuery(), { push = true } = {}) {
  $("status").textContent = t.loading;
  const result = await state.load(query, { push });
  if (result.aborted) return;
  $("status").textContent = "";
  controls.clearErrors();
  if (!result.ok) {
    controls.showError(result.body); // the previous view stays; nothing typed is lost
    state.setStale(true);
    showStale();
    return;
  }
  showStale();
  render();
}

function scheduleRecompute(event) {
  const timers = state.timers();
  clearTimeout(timers.typing);
  const typing = event && (event.target.tagName === "TEXTAREA" || ["text", "number", "search"].includes(event.target.type));
  if (typing) timers.typing = setTimeout(() => recompute(), TYPING_PAUSE_MS);
  else recompute();
}

/** Open a link (an example, Back/Forward) in place: the form shows its settings. */
async function openLink(query, { push }) {
  document.body.dataset.ready = "false";
  const result = await state.load(query, { push, keepFields: false });
  document.body.dataset.ready = "true";
  if (!result.ok) return;
  const view = state.view();
  controls.fill(view.params, view.mode, page.models);
  controls.clearErrors();
  showStale();
  render();
}

function showStale() {
  $("stale").hidden = !state.isStale();
  document.body.classList.toggle("stale", state.isStale());
}

// ---------------------------------------------------------------- view changes

function setStep(step) {
  const n = state.view().tokens.queries.length;
  state.setFields({ step: Math.max(0, Math.min(n - 1, step)) });
  renderStep();
}

function setStage(stage) {
  state.setFields({ stage });
  document.body.dataset.stage = String(stage);
  const article = $(`stage${stage}`);
  article.focus({ preventScroll: true });
  article.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function pickHead(layer, head) {
  const query = new URLSearchParams(state.view().query);
  if (state.view().mode === "model") query.set("layer", String(layer));
  state.setFields({ head });
  const layerBox = document.getElementById("layer");
  if (layerBox) layerBox.value = String(layer);
  recompute(query, { push: true });
}

function togglePresent() {
  const present = !state.field("present");
  state.setFields({ present });
  render();
}

function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.().catch(() => {});
}

function togglePlay() {
  const timers = state.timers();
  const last = () => state.view().tokens.queries.length - 1;
  if (timers.play) {
    clearInterval(timers.play);
    timers.play = null;
  } else {
    if (state.field("step") >= last()) setStep(0);
    timers.play = setInterval(() => {
      if (state.field("step") >= last()) togglePlay();
      else setStep(state.field("step") + 1);
    }, PLAY_INTERVAL_MS);
  }
  $("play").textContent = timers.play ? t.pause : t.play;
  $("play").setAttribute("aria-pressed", String(Boolean(timers.play)));
}

function toggleHelp(show) {
  const help = $("help");
  help.hidden = show === undefined ? !help.hidden : !show;
  $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
}

// ---------------------------------------------------------------- drawing

/** A feature's name in the page's language (the server names columns by their ids: animal, water, sin0...). */
const label = (name) => (t.feature_names && t.feature_names[name]) || name;
const labels = (names, width, prefix = "d") => (names ? names.map(label) : Array.from({ length: width }, (_, i) => `${prefix}${i}`));

/** Names of the output's columns (stage 3): the lexicon's features when the server says they are kept. */
function outputColumns(width) {
  return labels(state.view().names.output, width);
}

/** The head in focus, in a sentence from the server: its question (named heads) or why a word looks at itself. */
function renderHeadQuestion(view) {
  $("head-question").textContent = view.head_note ? view.head_note[page.lang] : "";
}

/** The head's own matrices, labelled: W_Q, W_K, W_V (and W, W₁, W₂, v of the general and additive scores), W_O. */
function renderMatrices(view) {
  const parameters = view.head.parameters || {};
  const slot = $("matrices");
  document.body.classList.toggle("has-matrices", Object.keys(parameters).length > 0);
  if (!Object.keys(parameters).length) return slot.replaceChildren();
  const inputs = labels(view.features, view.d_model);
  const dims = labels(view.names.vectors, view.d_k, "q");
  const values = labels(view.names.values, view.head.v[0].length, "v");
  const hidden = (n) => Array.from({ length: n }, (_, i) => `a${i}`);
  const figures = [];
  const isIdentityMatrix = (z) => z.length === z[0].length && z.every((row, i) => row.every((x, j) => x === (i === j ? 1 : 0)));
  const add = (name, rows, cols, z, skipZeroRows = true) =>
    figures.push(isIdentityMatrix(z) ? el("p", { class: "formula", text: `${name} = I` }) : matrixGrid({ name, rows, cols, z, skipZeroRows, t }));
  if (parameters.W_Q) add("W_Q", inputs, dims, parameters.W_Q);
  if (parameters.W_K) add("W_K", inputs, dims, parameters.W_K);
  if (parameters.W_V) add("W_V", inputs, values, parameters.W_V);
  if (parameters.W) add("W", dims, dims, parameters.W, false);
  if (parameters.W1) add("W₁", hidden(parameters.W1.length), dims, parameters.W1, false);
  if (parameters.W2) add("W₂", hidden(parameters.W2.length), dims, parameters.W2, false);
  if (parameters.v) add("v", hidden(parameters.v.length), ["v"], parameters.v.map((x) => [x]), false);
  if (view.n_heads > 1 && view.parameters.W_O) {
    const W_O = view.parameters.W_O;
    if (view.named_head) figures.push(el("p", { class: "formula", text: t.w_o_average.replace("{last}", String(view.n_heads - 1)).replace("{count}", String(view.n_heads)) }));
    else if (W_O.length <= 32) add("W_O", Array.from({ length: W_O.length }, (_, i) => `h${Math.floor(i / values.length)}·${i % values.length}`), inputs, W_O, false);
  }
  slot.replaceChildren(...figures);
}

function stepLabel(view, step) {
  const queries = view.tokens.queries;
  const parts = [`${t.step} ${step + 1} ${t.of} ${queries.length} · ${t.query_word}${t.colon}“${queries[step]}”`];
  if (view.n_heads > 1) parts.push(`${t.head} ${state.field("head")}${view.model ? ` · ${t.layer} ${view.params.layer}` : ""}`);
  if (view.params.hide_special) parts.push(t.renormalised);
  return parts.join(" · ");
}

/** Everything that depends on the current step only; the heatmaps just move their outline. */
function renderStep() {
  const view = state.view();
  const present = Boolean(state.field("present"));
  const step = state.field("step");
  const queries = view.tokens.queries;
  const keys = view.tokens.keys;
  const head = view.head;
  $("step-label").textContent = stepLabel(view, step);
  $("prev").disabled = step === 0;
  $("next").disabled = step === queries.length - 1;
  for (const id of ["chart-stage1", "chart-stage2", "chart-stage3"]) moveOutline($(id), step);
  bars($("chart-bars"), { labels: keys, values: head.weights[step], present, ranked: Boolean(state.field("rank")) });
  $("pairs").textContent = keys.map((k, j) => `(${k}, ${fmt(head.weights[step][j], 2)})`).join(" ");
  const strongest = keys[head.weights[step].indexOf(Math.max(...head.weights[step]))];
  alignment($("alignment"), { queries, keys, weights: head.weights, step, present, queryOnTop: view.mode !== "cross",
    label: `${t.alignment}${t.colon}${queries[step]} → ${strongest}` });
  drawArithmetic();
  performance.mark("attention-step"); // read by bench/bench_page.py
}

async function drawArithmetic() {
  const view = state.view();
  if (view.arithmetic === null) { // a real model's word units: the arithmetic is the pieces'
    $("arithmetic").textContent = t.units_words_note;
    return;
  }
  const board = await state.loadArithmetic();
  if (!board || board.step !== state.field("step") || view !== state.view()) return;
  arithmetic($("arithmetic"), { board, keys: view.tokens.keys, query: view.tokens.queries[board.step], t,
    names: { vectors: view.names.vectors && view.names.vectors.map(label), values: view.names.values && view.names.values.map(label) } });
  performance.mark("attention-arithmetic");
}

/** The three stage heatmaps and the head overview: redrawn when the data or the theme changes. */
function drawStages() {
  const view = state.view();
  const present = Boolean(state.field("present"));
  const step = state.field("step");
  const queries = view.tokens.queries;
  const keys = view.tokens.keys;
  const head = view.head;
  const widths = ["chart-stage1", "chart-stage2", "chart-stage3"].map((id) => $(id).clientWidth); // read layout once
  const common = { rows: queries, cols: keys, step, present };
  heatmap($("chart-stage1"), { ...common, z: head.scores, width: widths[0] });
  heatmap($("chart-stage2"), { ...common, z: head.weights, mask: head.mask, zmin: 0, zmax: 1, width: widths[1] });
  heatmap($("chart-stage3"), { z: head.output, rows: queries, cols: outputColumns(head.output[0].length), step, present, width: widths[2] });
  if (view.overview) {
    overviewGrid($("head-grid"), { overview: view.overview, layer: view.model ? view.params.layer : 0, head: state.field("head"), t, onPick: pickHead });
  }
  fillTables();
}

/** The data tables (the heatmaps' accessible twins) are filled when opened, and kept current while open. */
function fillTables() {
  const view = state.view();
  const queries = view.tokens.queries;
  const keys = view.tokens.keys;
  const head = view.head;
  const open = (id) => $(id).closest("details").open;
  if (open("table-stage1")) matrixTable($("table-stage1"), { rows: queries, cols: keys, z: head.scores, caption: t.stage1 });
  if (open("table-stage2")) matrixTable($("table-stage2"), { rows: queries, cols: keys, z: head.weights, mask: head.mask, caption: t.stage2 });
  if (open("table-stage3")) matrixTable($("table-stage3"), { rows: queries, cols: outputColumns(head.output[0].length), z: head.output, caption: t.stage3 });
  if (open("table-embeddings") && view.embeddings) {
    const { rows, cols, z } = embeddingMatrix();
    matrixTable($("table-embeddings"), { rows, cols, z, caption: t.embeddings });
  }
}

function drawEmbeddings() {
  if (!state.view().embeddings) return;
  const { rows, cols, z } = embeddingMatrix();
  heatmap($("chart-embeddings"), { z, rows, cols, present: Boolean(state.field("present")) });
}

function embeddingMatrix() {
  const view = state.view();
  const cross = view.mode === "cross";
  return {
    rows: cross ? [...view.tokens.queries, ...view.tokens.keys] : view.tokens.keys,
    z: cross ? [...view.embeddings.queries, ...view.embeddings.keys] : view.embeddings.keys,
    cols: labels(view.features, view.d_model),
  };
}

/** This view as both panes of a comparison (each parameter with its pane's prefix), to change one of them. */
function compareLink() {
  const pairs = state.currentQuery().split("&").filter(Boolean);
  const panes = ["a", "b"].flatMap((pane) => pairs.map((pair) => `${pane}.${pair}`));
  return `${page.routes.compare}?${panes.join("&")}`;
}

function currentPreset() {
  return page.presets.find((preset) => preset.query === state.view().query);
}

function render() {
  const view = state.view();
  const present = Boolean(state.field("present"));
  document.body.classList.toggle("present", present);
  $("present-toggle").setAttribute("aria-pressed", String(present));
  document.body.dataset.stage = String(state.field("stage"));
  document.body.classList.toggle("has-heads", Boolean(view.overview));
  document.body.classList.toggle("has-embeddings", Boolean(view.embeddings));
  const unknown = $("unknown");
  unknown.hidden = !view.unknown_tokens.length;
  const unknownLabel = view.mode === "model" ? t.unknown_model : t.unknown;
  unknown.textContent = view.unknown_tokens.length ? `${unknownLabel} ${view.unknown_tokens.join(", ")}` : "";
  $("model-note").textContent = view.model ? t[`model_note_${view.model.name}`] || "" : "";
  renderHeadQuestion(view);
  renderMatrices(view);
  renderSummaries(view, { summary: state.field("summary"), present, t, onPick: pickHead,
    setSummary: (summary) => { state.setFields({ summary }); render(); } });
  const preset = currentPreset();
  $("preset").value = preset ? preset.id : "";
  $("lesson").textContent = preset ? preset.lesson : "";
  $("api-link").setAttribute("href", state.apiPath());
  $("compare-link").setAttribute("href", compareLink());
  drawStages();
  renderStep();
  setTimeout(drawEmbeddings, 0); // below the stages: drawn after them
  performance.mark("attention-render"); // read by bench/bench_page.py
}

// ---------------------------------------------------------------- export

function exportMatrix(name) {
  const view = state.view();
  const queries = view.tokens.queries;
  if (name === "embeddings") return embeddingMatrix();
  if (name === "output") return { rows: queries, cols: outputColumns(view.head.output[0].length), z: view.head.output };
  return { rows: queries, cols: view.tokens.keys, z: view.head[name] };
}

function exportButtons() {
  document.querySelectorAll(".exports").forEach((slot) => {
    const chart = $(slot.dataset.chart);
    const png = el("button", { type: "button", text: `${t.export} ${t.export_png}` });
    png.addEventListener("click", () => downloadPng(chart, slot.dataset.chart));
    const csv = el("button", { type: "button", text: t.export_csv });
    csv.addEventListener("click", () => {
      const { rows, cols, z } = exportMatrix(slot.dataset.matrix);
      download(`${slot.dataset.matrix}.csv`, toCsv(rows, cols, z), "text/csv");
    });
    const json = el("button", { type: "button", text: t.export_json });
    json.addEventListener("click", () => {
      const body = { share_path: state.pagePath(), ...exportMatrix(slot.dataset.matrix) };
      download(`${slot.dataset.matrix}.json`, JSON.stringify(body, null, 1), "application/json");
    });
    slot.replaceChildren(png, csv, json);
  });
}

// ---------------------------------------------------------------- wiring

function onKey(event) {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
  const actions = {
    ArrowLeft: () => setStep(state.field("step") - 1), ArrowRight: () => setStep(state.field("step") + 1),
    1: () => setStage(1), 2: () => setStage(2), 3: () => setStage(3),
    p: togglePresent, P: togglePresent, f: toggleFullscreen, F: toggleFullscreen,
    "?": () => toggleHelp(), Escape: () => toggleHelp(false), " ": togglePlay,
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

function onModeChange() {
  const mode = controls.activeMode();
  if (mode === "exercise") {
    const example = page.presets.find((p) => p.id === "exercise");
    if (example) controls.exampleExercise(example.query);
  }
  controls.applyMode(mode);
  recompute();
}

function wire() {
  const form = $("controls");
  form.addEventListener("input", (event) => {
    if (event.target.name === "_mode") return;
    if (event.target.dataset.mirrors) controls.syncMirrors(event.target);
    else controls.syncMirrors();
    if (event.target.tagName === "SELECT") controls.applyMode(controls.activeMode()); // a choice may meet a requirement
    scheduleRecompute(event);
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "_mode") onModeChange();
    if (event.target.name === "model") {
      const layer = document.getElementById("layer");
      if (layer && page.models[event.target.value]) controls.layerOptions(layer, page.models[event.target.value].n_layers);
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(state.timers().typing);
    recompute();
  });
  $("preset").addEventListener("change", (event) => {
    const preset = page.presets.find((p) => p.id === event.target.value);
    if (preset) openLink(preset.link.slice(preset.link.indexOf("?") + 1), { push: true });
  });
  $("prev").addEventListener("click", () => setStep(state.field("step") - 1));
  $("next").addEventListener("click", () => setStep(state.field("step") + 1));
  $("play").addEventListener("click", togglePlay);
  $("present-toggle").addEventListener("click", togglePresent);
  $("fullscreen-toggle").addEventListener("click", toggleFullscreen);
  $("help-toggle").addEventListener("click", () => toggleHelp());
  $("help-close").addEventListener("click", () => toggleHelp(false));
  document.querySelectorAll("details.table").forEach((details) => details.addEventListener("toggle", fillTables));
  $("lang-switch").addEventListener("click", (event) => {
    event.preventDefault();
    state.setFields({ lang: event.currentTarget.dataset.lang });
    location.assign(state.pagePath()); // the words of the whole page change: load it anew
  });
  $("copy-link").addEventListener("click", async () => {
    const link = location.origin + state.pagePath();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      /* clipboard refused (insecure context): the link is shown below instead */
    }
    $("status").textContent = `${t.copied}${t.colon}${link}`;
    $("copy-link").dataset.link = link;
  });
  window.addEventListener("popstate", () => openLink(location.search.slice(1), { push: false }));
  document.addEventListener("keydown", onKey);
}

state.setFields({}); // the address bar shows the canonical link of what the page shows
controls.applyMode(state.view().mode);
exportButtons();
wire();
setupLive({ t, showView: (view) => openLink(view, { push: false }) });
render();
document.body.dataset.ready = "true";
