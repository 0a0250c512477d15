// Attention Lens page: the URL's query is the state; this module keeps the page, the URL and the
// data in step. Edits fetch /api/attention with the same query and push a history entry; view
// changes (step, head, stage, presentation) only rewrite the URL.
import { downloadPng, heatmap, moveOutline } from "./charts.js";
import { fmt, formatValue, sharePath } from "./format.js";
import { alignment, arithmetic, bars, download, el, headGrid, matrixTable, modelGrid, toCsv } from "./panels.js";

const page = JSON.parse(document.getElementById("page-data").textContent);
const t = page.strings;
const form = document.getElementById("controls");
const $ = (id) => document.getElementById(id);

let view = page.view; // the /api/attention body of the current view
let params = { ...view.params }; // canonical parameters, view state included
let playing = null;
let pending = null;
let debounce = null;
let embeddingsDrawn = null;

// ---------------------------------------------------------------- state and URL

function currentPath() {
  return sharePath(params, page.order, page.defaults, page.embed ? "/embed" : "/");
}

function writeUrl(push) {
  const path = currentPath();
  if (path === location.pathname + location.search) return;
  if (push) history.pushState(null, "", path);
  else history.replaceState(null, "", path);
  $("api-link").setAttribute("href", "/api/attention" + (path.includes("?") ? path.slice(path.indexOf("?")) : ""));
}

function headIndex() {
  const h = params.head ?? 0;
  return Math.min(h, view.heads.length - 1);
}

function currentHead() {
  if (view.mode === "model" && params.head !== null && view.heads_shown) {
    return view.heads[Math.max(0, view.heads_shown.indexOf(params.head))];
  }
  return view.heads[headIndex()];
}

// ---------------------------------------------------------------- mode switch

function activeMode() {
  return form.querySelector('input[name="_mode"]:checked').value;
}

function applyMode(mode) {
  document.body.className = document.body.className.replace(/\bmode-\w+/, "") + ` mode-${mode}`;
  const enabled = {
    source: mode !== "exercise", target: mode === "cross",
    q: mode === "exercise", k: mode === "exercise", v: mode === "exercise",
    query_labels: mode === "exercise", key_labels: mode === "exercise",
    heads: mode === "self" || mode === "cross", layer: mode === "model",
    positional: mode !== "exercise" && mode !== "model", embedding: mode === "self" || mode === "cross",
    dim: mode === "self" || mode === "cross", projection: mode === "self" || mode === "cross",
    seed: mode === "self" || mode === "cross", causal: mode === "self" || mode === "exercise",
  };
  for (const [name, on] of Object.entries(enabled)) {
    const control = form.elements.namedItem(name);
    if (control) control.disabled = !on;
  }
  if (mode === "model" && params.head === null) params.head = 0;
  if (mode !== "model" && params.head !== null && params.head >= Number($("heads").value)) params.head = null;
  $("model").value = mode === "model" ? "minilm" : "toy";
  $("model").disabled = mode !== "model";
  if (mode === "exercise" && !$("q").value.trim()) {
    const example = page.presets.find((p) => p.id === "exercise").params;
    for (const name of ["q", "k", "v"]) $(name).value = example[name].split(";").join("\n");
    $("query_labels").value = example.query_labels;
    $("key_labels").value = example.key_labels;
    $("score").value = example.score;
  }
  if (mode === "model") {
    for (const s of ["general", "additive", "dot", "cosine"]) form.querySelector(`#score option[value=${s}]`).disabled = true;
    $("score").value = "scaled_dot";
  } else {
    form.querySelectorAll("#score option").forEach((o) => { o.disabled = mode === "exercise" && ["general", "additive"].includes(o.value); });
  }
}

// ---------------------------------------------------------------- edits

function formQuery() {
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (name.startsWith("_") || page.view_fields.includes(name)) continue;
    if (String(value).trim() === "" && name !== "source") continue;
    query.set(name, ["q", "k", "v"].includes(name) ? String(value).trim().split(/\n+/).join(";") : value);
  }
  for (const name of page.view_fields) {
    if (params[name] !== null && params[name] !== page.defaults[name]) query.set(name, String(params[name]));
  }
  return query;
}

function clearErrors() {
  form.querySelectorAll(".error").forEach((p) => { p.textContent = ""; });
  form.querySelectorAll("[aria-invalid]").forEach((c) => c.removeAttribute("aria-invalid"));
}

function showError(body) {
  const field = Array.isArray(body.detail) ? body.detail[0].field : "form";
  const slot = $(`${field}-error`) || $("form-error");
  slot.textContent = body.message || String(body.detail);
  const control = form.elements.namedItem(field);
  if (control && control.setAttribute) control.setAttribute("aria-invalid", "true");
}

async function recompute(push = true) {
  const query = formQuery();
  if (pending) pending.abort();
  pending = new AbortController();
  $("status").textContent = t.loading;
  let response;
  try {
    response = await fetch("/api/attention?" + query.toString(), { signal: pending.signal });
  } catch (error) {
    if (error.name !== "AbortError") $("status").textContent = String(error);
    return;
  }
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: text.trim() || `HTTP ${response.status}` }; // 413/414 answer in plain text
  }
  $("status").textContent = "";
  clearErrors();
  if (!response.ok) {
    showError(body); // the previous view stays; nothing typed is lost
    return;
  }
  view = body;
  params = { ...body.params };
  writeUrl(push);
  render();
}

const TYPING_PAUSE_MS = 100; // typing is debounced; choices (selects, checkboxes) apply at once

function scheduleRecompute(event) {
  clearTimeout(debounce);
  const typing = event && (event.target.tagName === "TEXTAREA" || ["text", "number", "search"].includes(event.target.type));
  if (typing) debounce = setTimeout(() => recompute(true), TYPING_PAUSE_MS);
  else recompute(true);
}

// ---------------------------------------------------------------- view changes

function setStep(step) {
  const n = view.tokens.queries.length;
  params.step = Math.max(0, Math.min(n - 1, step));
  $("step-field").value = params.step;
  writeUrl(false);
  renderStep();
}

function setHead(h) {
  params.head = h;
  writeUrl(false);
  if (view.mode === "model") recompute(false);
  else render();
}

function pickModelHead(layer, head) {
  params.head = head;
  $("layer").value = String(layer);
  recompute(true);
}

function setStage(stage) {
  params.stage = stage;
  document.body.dataset.stage = String(stage);
  writeUrl(false);
  const article = $(`stage${stage}`);
  article.focus({ preventScroll: true });
  article.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function togglePresent() {
  params.present = !params.present;
  document.body.classList.toggle("present", params.present);
  $("present-toggle").setAttribute("aria-pressed", String(params.present));
  writeUrl(false);
  render();
}

function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.().catch(() => {});
}

function togglePlay() {
  if (playing) {
    clearInterval(playing);
    playing = null;
  } else {
    if (params.step >= view.tokens.queries.length - 1) setStep(0);
    playing = setInterval(() => {
      if (params.step >= view.tokens.queries.length - 1) togglePlay();
      else setStep(params.step + 1);
    }, 1200);
  }
  $("play").textContent = playing ? t.pause : t.play;
  $("play").setAttribute("aria-pressed", String(Boolean(playing)));
}

function toggleHelp(show) {
  const help = $("help");
  help.hidden = show === undefined ? !help.hidden : !show;
  $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
}

// ---------------------------------------------------------------- drawing

function hiddenSpecial() {
  return view.mode === "model" && Boolean(params.hide_special);
}

/** For the real model: drop [CLS]/[SEP] columns and renormalise each row (shown as such, never silently). */
function displayed(head) {
  const keys = view.tokens.keys;
  if (!hiddenSpecial()) return { head, keys, renormalised: false };
  const keep = keys.map((k, j) => !["[CLS]", "[SEP]"].includes(k) ? j : -1).filter((j) => j >= 0);
  const pick = (row) => keep.map((j) => row[j]);
  const weights = head.weights.map((row) => {
    const kept = pick(row);
    const total = kept.reduce((a, b) => a + b, 0) || 1;
    return kept.map((w) => w / total);
  });
  return {
    head: { ...head, weights, scores: head.scores.map(pick), mask: head.mask.map(pick), k: keep.map((j) => head.k[j]), v: keep.map((j) => head.v[j]) },
    keys: keep.map((j) => keys[j]),
    renormalised: true,
  };
}

function outputColumns(width) {
  const features = view.features;
  if (features && params.projection === "identity" && view.mode !== "exercise") {
    const start = headIndex() * width;
    return features.slice(start, start + width);
  }
  return Array.from({ length: width }, (_, i) => `d${i}`);
}

/** Everything that depends on the current step only; the heatmaps just move their outline. */
function renderStep() {
  const present = Boolean(params.present);
  const step = params.step;
  const queries = view.tokens.queries;
  const { head, keys, renormalised } = displayed(currentHead());
  $("step-label").textContent = `${t.step} ${step + 1} ${t.of} ${queries.length} · ${t.query_word}: “${queries[step]}”` + (renormalised ? ` · ${t.renormalised}` : "");
  $("prev").disabled = step === 0;
  $("next").disabled = step === queries.length - 1;
  for (const id of ["chart-stage1", "chart-stage2", "chart-stage3"]) moveOutline($(id), step);
  const names = view.features && params.projection === "identity" && !params.positional ? outputColumns(head.q[0].length) : null;
  arithmetic($("arithmetic"), { head, step, keys, query: queries[step], params, dk: view.d_k, t, names });
  bars($("chart-bars"), { labels: keys, values: head.weights[step], present });
  $("pairs").textContent = keys.map((k, j) => `(${k}, ${fmt(head.weights[step][j], 2)})`).join(" ");
  const strongest = keys[head.weights[step].indexOf(Math.max(...head.weights[step]))];
  alignment($("alignment"), { queries, keys, weights: head.weights, step, present, queryOnTop: view.mode !== "cross",
    label: `${t.alignment}: ${queries[step]} → ${strongest}` });
  performance.mark("attention-step"); // read by bench/bench_page.py
}

/** The three stage heatmaps and the head overview: redrawn when the data, the head or the theme changes. */
function drawStages() {
  const present = Boolean(params.present);
  const step = params.step;
  const queries = view.tokens.queries;
  const { head, keys } = displayed(currentHead());
  const widths = ["chart-stage1", "chart-stage2", "chart-stage3"].map((id) => $(id).clientWidth); // read layout once
  const common = { rows: queries, cols: keys, step, present };
  heatmap($("chart-stage1"), { ...common, z: head.scores, width: widths[0] });
  heatmap($("chart-stage2"), { ...common, z: head.weights, mask: head.mask, zmin: 0, zmax: 1, width: widths[1] });
  heatmap($("chart-stage3"), { z: head.output, rows: queries, cols: outputColumns(head.output[0].length), step, present, width: widths[2] });
  if (view.overview) {
    modelGrid($("head-grid"), { overview: view.overview, layer: params.layer, head: params.head ?? 0, t, onPick: pickModelHead });
  } else if (view.heads.length > 1) {
    headGrid($("head-grid"), { heads: view.heads, current: headIndex(), label: t.head, onPick: setHead });
  }
  fillTables();
}

/** The data tables (the heatmaps' accessible twins) are filled when opened, and kept current while open. */
function fillTables() {
  const queries = view.tokens.queries;
  const { head, keys } = displayed(currentHead());
  const open = (id) => $(id).closest("details").open;
  if (open("table-stage1")) matrixTable($("table-stage1"), { rows: queries, cols: keys, z: head.scores, caption: t.stage1 });
  if (open("table-stage2")) matrixTable($("table-stage2"), { rows: queries, cols: keys, z: head.weights, mask: head.mask, caption: t.stage2 });
  if (open("table-stage3")) matrixTable($("table-stage3"), { rows: queries, cols: outputColumns(head.output[0].length), z: head.output, caption: t.stage3 });
  if (open("table-embeddings") && view.embeddings) {
    const { rows, cols, z } = embeddingMatrix();
    matrixTable($("table-embeddings"), { rows, cols, z, caption: t.embeddings });
  }
}

/** The input vectors sit below the stages: drawn after them, and only when they changed. */
function drawEmbeddingsLater() {
  if (!view.embeddings) return;
  const key = [view.share_path.replace(/&?(step|head|stage|lang|hide_special)=[^&]*/g, ""), Boolean(params.present)].join(" ");
  if (key === embeddingsDrawn) return;
  embeddingsDrawn = key;
  setTimeout(() => {
    const { rows, cols, z } = embeddingMatrix();
    heatmap($("chart-embeddings"), { z, rows, cols, present: Boolean(params.present) });
  }, 0);
}

function embeddingMatrix() {
  const cross = view.mode === "cross";
  return {
    rows: cross ? [...view.tokens.queries, ...view.tokens.keys] : view.tokens.keys,
    z: cross ? [...view.embeddings.queries, ...view.embeddings.keys] : view.embeddings.keys,
    cols: view.features || Array.from({ length: view.d_model }, (_, i) => `d${i}`),
  };
}

function render() {
  document.body.classList.toggle("has-heads", view.heads.length > 1 || Boolean(view.overview));
  document.body.classList.toggle("has-embeddings", Boolean(view.embeddings));
  const unknown = $("unknown");
  unknown.hidden = !view.unknown_tokens.length;
  const unknownLabel = view.mode === "model" ? t.unknown_model : t.unknown;
  unknown.textContent = view.unknown_tokens.length ? `${unknownLabel} ${view.unknown_tokens.join(", ")}` : "";
  drawEmbeddingsLater();
  const preset = page.presets.find(matchesPreset);
  $("lesson").textContent = preset ? preset.lesson[page.lang] : "";
  drawStages();
  renderStep();
  performance.mark("attention-render"); // read by bench/bench_page.py
}

/** Does the view show a preset (its settings, every other setting at its default; view state aside)? */
function matchesPreset(preset) {
  const text = (name, value) => (value === null || value === undefined ? "" : formatValue(name, value));
  return page.order.filter((name) => !page.view_fields.includes(name)).every((name) => {
    const wanted = name in preset.params ? preset.params[name] : text(name, page.defaults[name]);
    return text(name, params[name]) === wanted;
  });
}

// ---------------------------------------------------------------- wiring

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
      download(`${slot.dataset.matrix}.json`, JSON.stringify({ share_path: view.share_path, ...exportMatrix(slot.dataset.matrix) }, null, 1), "application/json");
    });
    slot.replaceChildren(png, csv, json);
  });
}

function exportMatrix(name) {
  const { head, keys } = displayed(currentHead());
  const queries = view.tokens.queries;
  if (name === "embeddings") return embeddingMatrix();
  if (name === "output") return { rows: queries, cols: outputColumns(head.output[0].length), z: head.output };
  return { rows: queries, cols: keys, z: head[name] };
}

function onKey(event) {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
  const actions = {
    ArrowLeft: () => setStep(params.step - 1), ArrowRight: () => setStep(params.step + 1),
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

function wire() {
  form.addEventListener("input", (event) => {
    if (event.target.name === "_mode") return;
    if (event.target.id === "temperature") $("temperature-value").textContent = event.target.value;
    scheduleRecompute(event);
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "_mode") {
      applyMode(activeMode());
      recompute(true);
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(debounce);
    recompute(true);
  });
  $("preset").addEventListener("change", (event) => {
    const preset = page.presets.find((p) => p.id === event.target.value);
    if (!preset) return;
    const query = new URLSearchParams(preset.params);
    if (params.lang) query.set("lang", params.lang);
    if (params.present) query.set("present", "true");
    location.assign((page.embed ? "/embed?" : "/?") + query.toString());
  });
  $("prev").addEventListener("click", () => setStep(params.step - 1));
  $("next").addEventListener("click", () => setStep(params.step + 1));
  $("play").addEventListener("click", togglePlay);
  $("present-toggle").addEventListener("click", togglePresent);
  $("fullscreen-toggle").addEventListener("click", toggleFullscreen);
  $("help-toggle").addEventListener("click", () => toggleHelp());
  $("help-close").addEventListener("click", () => toggleHelp(false));
  $("hide-special").addEventListener("change", (event) => {
    params.hide_special = event.target.checked;
    writeUrl(false);
    render();
  });
  document.querySelectorAll("details.table").forEach((details) => details.addEventListener("toggle", fillTables));
  $("lang-switch").addEventListener("click", (event) => {
    event.preventDefault();
    params.lang = event.currentTarget.dataset.lang;
    location.assign(currentPath());
  });
  $("copy-link").addEventListener("click", async () => {
    const link = location.origin + currentPath();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      /* clipboard refused (insecure context): the link is shown below instead */
    }
    $("status").textContent = `${t.copied}: ${link}`;
    $("copy-link").dataset.link = link;
  });
  window.addEventListener("popstate", () => location.reload());
  document.addEventListener("keydown", onKey);
}

applyMode(view.mode);
exportButtons();
wire();
render();
document.body.dataset.ready = "true";
