// Attention Lens page: start-up and wiring. The URL's query is the state (state.js keeps it); the form
// (controls.js) says what the user typed; the charts (charts.js) and panels (panels.js) draw a view.
import { downloadPng, heatmap, MANY, moveOutline } from "./charts.js";
import { toggleHelp, wireChrome } from "./chrome.js";
import * as controls from "./controls.js";
import { fmt, fmtWeight } from "./format.js";
import { drawGeometry, planeNote, syncGeometryTools, wireGeometryTools } from "./geometry.js";
import { alignment, arithmetic, bars, download, el, matrixGrid, matrixTable, noteLines, overviewGrid, toCsv } from "./panels.js";
import { setupLive } from "./live-ui.js";
import { drawSelfAttention, renderTranslation, renderTranslationStep } from "./translation.js";
import { renderSummaries } from "./summaries.js";
import * as state from "./state.js";

const { page } = state;
const t = page.strings;
const $ = (id) => document.getElementById(id);
const TYPING_PAUSE_MS = 50; // typing is debounced (a pause between keys); choices (selects, checkboxes) apply at once
const PLAY_INTERVAL_MS = 1200;
const PRESENT_CHART_SHARE = 0.55; // presentation mode: a heatmap at most this share of the screen's height
const PRESENT_CELL = 40; // px: a column wide enough for a two-decimal value in 14 px type, when projected
const PRESENT_CHROME = 300; // px: a projected heatmap's row labels, colour scale and card around its cells

// ---------------------------------------------------------------- loading views

/** Ask the server for the view the form describes; show its errors beside the controls, or the new view. */
async function recompute(query = controls.formQuery(), { push = true } = {}) {
  $("status").textContent = t.loading;
  const result = await state.load(query, { push });
  if (result.aborted) return;
  performance.mark("attention-answer"); // read by bench/bench_page.py: the server's answer is in
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
  clearTimeout(state.timers().typing);
  $("status").textContent = t.loading;
  const result = await state.load(query, { push, keepFields: false });
  if (result.aborted) return; // a newer request clears the status
  $("status").textContent = "";
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
  const view = state.view();
  const n = view.tokens.queries.length;
  const next = Math.max(0, Math.min(n - 1, step));
  state.setFields({ step: next });
  renderStep(); // the outline, the label and the step's own sentence move at once
  // No head named in the link: each word shows the head whose question it asks, computed by the server.
  if (view.focus && view.focus.auto && view.focus.heads[next] !== view.focus.head) recompute(state.currentQuery(), { push: false });
}

/** Back to the head each word asks (no head in the link). */
function autoHeads() {
  const query = new URLSearchParams(state.currentQuery());
  query.delete("head");
  state.setFields({ head: null });
  recompute(query, { push: true });
}

function setStage(stage) {
  if (state.field("slide")) stageBeforeSlides = stage;
  state.setFields(state.field("slide") ? { stage, slide: stage } : { stage });
  applyScreen();
  const article = $(`stage${stage}`);
  article.focus({ preventScroll: true });
  if (!state.field("slide")) article.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

/** Choosing a head is a new view (its matrices come from the server): a new history entry. */
function pickHead(layer, head) {
  const query = new URLSearchParams(state.view().query);
  if (["model", "translate"].includes(state.view().mode)) query.set("layer", String(layer));
  query.set("head", String(head));
  const layerBox = document.getElementById("layer");
  if (layerBox) layerBox.value = String(layer);
  const headBox = document.getElementById("head"); // a translator's head select (other modes pick heads here only)
  if (headBox && state.view().mode === "translate") headBox.value = String(head);
  recompute(query, { push: true });
}

function togglePresent() {
  const present = !state.field("present");
  state.setFields({ present });
  render();
}

// ---------------------------------------------------------------- slide mode: one panel at a time

/**
 * The panels slide mode shows one at a time, by their numbers (the `slide` field: 1 2 3 the stages ... 8 the
 * translation), those this view has: no translation panel but a translator's; rnnencdec, without attention, has
 * neither scores nor weights (stage 2 says so in words on the page), so its slides are stage 3, C, and the rest.
 */
function slidePanels() {
  const body = document.body;
  const has = (panel) => !(panel.classList.contains("for-translation") && !body.classList.contains("has-translation"))
    && !(body.classList.contains("no-attention") && (["stage1", "stage2"].includes(panel.id) || panel.classList.contains("needs-attention")));
  return [...document.querySelectorAll("[data-slide-panel]")].filter(has).sort((a, b) => slideNumber(a) - slideNumber(b));
}

const slideNumber = (panel) => Number(panel.dataset.slidePanel);

/** The panel numbered `slide`, or the view's next one after it (the last when none follows). */
function slideAt(slide, panels = slidePanels()) {
  return panels.find((panel) => slideNumber(panel) >= slide) || panels[panels.length - 1];
}

/**
 * The stage in focus when slide mode began (or chosen with 1 2 3 in it): leaving slide mode returns to it,
 * so paging through the panels with ↑ ↓ leaves no stage behind in the link.
 */
let stageBeforeSlides = null;

/** Show panel number `slide` (0: leave slide mode); a stage's panel makes that stage current too. */
function setSlide(slide) {
  const panel = slide ? slideAt(slide) : null;
  const next = panel ? slideNumber(panel) : 0;
  if (stageBeforeSlides === null) stageBeforeSlides = state.field("stage");
  const stage = next ? Number(panel.dataset.stage) : stageBeforeSlides;
  if (!next) stageBeforeSlides = null;
  state.setFields(stage ? { slide: next, stage } : { slide: next });
  applyScreen();
  if (panel) panel.focus({ preventScroll: true });
}

function toggleSlides() {
  setSlide(state.field("slide") ? 0 : Number(state.field("stage")));
  render();
}

/** The view's previous or next panel (↑ ↓, PgUp PgDn): the newly shown panel draws itself (watchSizes). */
function movePanel(delta) {
  const panels = slidePanels();
  const at = panels.indexOf(slideAt(state.field("slide"), panels));
  setSlide(slideNumber(panels[Math.max(0, Math.min(panels.length - 1, at + delta))]));
}

function onEscape() {
  if (!$("help").hidden) toggleHelp(false);
  else if (state.field("slide")) toggleSlides();
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

// ---------------------------------------------------------------- drawing

/** A feature's name in the page's language (the server names columns by their ids: animal, water, sin0...). */
const label = (name) => (t.feature_names && t.feature_names[name]) || name;
const labels = (names, width, prefix = "d") => (names ? names.map(label) : Array.from({ length: width }, (_, i) => `${prefix}${i}`));

/** Names of the output's columns (stage 3): the lexicon's features when the server says they are kept. */
function outputColumns(width) {
  return labels(state.view().names.output, width);
}

/** The head in focus, in a sentence from the server: the question the current word asks (named heads), or
 * why a word looks at itself. */
function renderHeadQuestion(view) {
  const notes = view.focus && view.focus.notes;
  const note = notes ? notes[state.field("step")][page.lang] : view.head_note ? view.head_note[page.lang] : "";
  $("head-question").textContent = note;
  $("heads-auto").hidden = !view.focus || !view.focus.names || view.focus.auto;
}

/** Every head's weights for the current word, one row per head, side by side (the teaching engine). */
function drawEveryHead(box = boxOf($("chart-every-head"))) {
  const view = state.view();
  const slot = $("chart-every-head");
  const rows = view.focus && view.focus.rows;
  if (!rows || view.n_heads < 2 || !recordBox(slot, box)) return;
  const step = state.field("step");
  const names = view.focus.names || rows.map((_, h) => `${t.head} ${h + 1}`);
  const labelsOfHeads = names.map((name, h) => `${h + 1} ${name}${h === view.focus.head ? " ◀" : ""}`);
  heatmap(slot, { z: rows.map((weights) => weights[step]), rows: labelsOfHeads, cols: view.tokens.keys, zmin: 0, zmax: 1,
    ...box, height: null, fill: false, step: view.focus.head });
}

/** The head's own matrices, labelled: W_Q, W_K, W_V, the score function's own parameters if it has any (W; W₁, W₂, v), W_O. */
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
  // the named heads' W_O is their average, said in words (the answer leaves its numbers out)
  if (view.n_heads > 1 && view.named_head) figures.push(el("p", { class: "formula", text: t.w_o_average.replace("{last}", String(view.n_heads - 1)).replace("{count}", String(view.n_heads)) }));
  else if (view.n_heads > 1 && view.parameters.W_O && view.parameters.W_O.length <= 32) {
    const W_O = view.parameters.W_O;
    add("W_O", Array.from({ length: W_O.length }, (_, i) => `h${Math.floor(i / values.length)}·${i % values.length}`), inputs, W_O, false);
  }
  slot.replaceChildren(...figures);
}

function stepLabel(view, step) {
  const queries = view.tokens.queries;
  const parts = [`${t.step} ${step + 1} ${t.of} ${queries.length} · ${t.query_word}${t.colon}“${queries[step]}”`];
  const probability = view.translation && view.translation.probabilities[step];
  if (probability !== undefined && probability !== null) parts.push(`p = ${fmtWeight(probability)}`); // the word's probability
  // named heads are counted from 1, beside their names; a real model's heads and layers as the model's papers and
  // the link count them, from 0 (layer 5, head 11)
  const shown = view.focus ? view.focus.head + 1 : state.field("head") || 0;
  if (view.n_heads > 1) parts.push(`${t.head} ${shown}${view.model ? ` · ${t.layer} ${view.params.layer}` : ""}`);
  if (view.params.hide_special) parts.push(t.renormalised);
  return parts.join(" · ");
}

// ---------------------------------------------------------------- sizes: every chart follows its box

const onePanel = () => document.body.classList.contains("one-panel");

/**
 * Where a chart or panel stands now: its width, its type size and colours from the page's CSS, and a
 * height budget (one panel on the screen: its box; presentation mode: a share of the screen's height).
 * `key` names the box: a chart is redrawn when its box's key changes (watchSizes).
 */
function boxOf(el) {
  const present = Boolean(state.field("present"));
  const room = el.classList.contains("chart") ? el.parentElement : el; // a chart's wrapper is its room
  const one = onePanel();
  const width = el.clientWidth;
  const budget = one ? room.clientHeight : present ? Math.round(innerHeight * PRESENT_CHART_SHARE) : null;
  return {
    width,
    font: parseFloat(getComputedStyle(el).fontSize),
    dark: present,
    height: budget,
    fill: one,
    key: width ? `${width}x${budget ?? ""}` : "hidden",
  };
}

/** The box a chart or panel slot was last drawn for (a hidden one is drawn when it is shown). */
function recordBox(el, box) {
  el.parentElement.dataset.box = box.key;
  return box.width > 0;
}

/**
 * Redraw a chart or panel when its box changes size: P, F, a resized window, a projector plugged in,
 * a panel shown in slide mode. Redraws wait for the next frame (no layout loop inside the observer).
 */
function watchSizes() {
  const redraws = new Map([
    [$("chart-stage1").parentElement, () => drawStage(1)],
    [$("chart-stage2").parentElement, () => drawStage(2)],
    [$("chart-stage3").parentElement, () => drawStage(3)],
    [$("chart-embeddings").parentElement, drawEmbeddings],
    [$("chart-rollout").parentElement, drawRollout],
    [$("chart-zeroing-rollout").parentElement, drawZeroingRollout],
    [$("bars-panel"), drawBars],
    [$("alignment-panel"), drawAlignment],
    [$("chart-every-head").parentElement, drawEveryHead],
    [$("chart-geometry").parentElement, drawGeometryPanel],
    [$("chart-self").parentElement, drawSelf],
    [$("chart-cache").parentElement, drawCache],
  ]);
  const redrawIfResized = (target) => {
    if (target.dataset.pending) return;
    target.dataset.pending = "true";
    requestAnimationFrame(() => {
      delete target.dataset.pending;
      if (boxOf(target.querySelector(".chart, .bars, .alignment")).key !== target.dataset.box) redraws.get(target)();
    });
  };
  const observer = new ResizeObserver((entries) => entries.forEach((entry) => redrawIfResized(entry.target)));
  for (const target of redraws.keys()) observer.observe(target);
  window.addEventListener("resize", () => {
    stackStages();
    fitStepLabel();
    redraws.forEach((_, target) => redrawIfResized(target)); // height budgets
    requestAnimationFrame(fitArithmetic);
  });
}

/**
 * Presentation mode puts stages 1 and 2 side by side, unless half the screen is too narrow for their columns'
 * numbers (14 px and more): then one above the other, each the screen's width.
 */
function stackStages() {
  const keys = state.view().tokens.keys.length;
  const half = (document.documentElement.clientWidth - 60) / 2 - PRESENT_CHROME;
  document.body.classList.toggle("stacked", Boolean(state.field("present")) && keys * PRESENT_CELL > half);
}

/**
 * The current step's words: its label, the step buttons, the (key, weight) pairs and the head question. They take
 * room (the head question sits above the stages), so render() writes them before it draws any chart: drawn first,
 * a chart that fills its panel (a slide, /embed) was drawn again at once, smaller, when the question appeared.
 */
function writeStep(view, step) {
  $("step-label").textContent = stepLabel(view, step);
  fitStepLabel();
  $("prev").disabled = step === 0;
  $("next").disabled = step === view.tokens.queries.length - 1;
  $("pairs").textContent = view.tokens.keys.map((k, j) => `(${k}, ${fmtWeight(view.head.weights[step][j])})`).join(" ");
  renderHeadQuestion(view);
  document.body.classList.toggle("has-every-head", Boolean(view.focus && view.focus.rows) && view.n_heads > 1);
}

const STEP_LABEL_SHRINK = 0.8; // the step's label may lose a fifth of its size to stay on one line (never under 14 px)

/**
 * The step's label on one line when a smaller type fits it there: a translator's label (the word's probability, the
 * head and layer) took a second line, which pushed the stages below a projector's first screen.
 */
function fitStepLabel() {
  const label = $("step-label");
  label.style.fontSize = "";
  const natural = parseFloat(getComputedStyle(label).fontSize);
  const smallest = Math.max(MIN_SLIDE_FONT, natural * STEP_LABEL_SHRINK);
  const wraps = (size) => label.offsetHeight > size * 1.8; // more than one line of text
  for (let size = natural; wraps(size) && size - 1 >= smallest; ) {
    size -= 1;
    label.style.fontSize = `${size}px`;
  }
  if (wraps(parseFloat(label.style.fontSize || natural))) label.style.fontSize = ""; // two lines either way: as it was
}

/** Everything that depends on the current step only; the heatmaps just move their outline. */
function renderStep() {
  writeStep(state.view(), state.field("step"));
  drawStep();
}

/**
 * Where each of the step's pictures stands, read in one go before any of them is drawn: each draw changes the page,
 * and a box read after it made the browser lay the whole page out again (one layout a panel).
 */
function stepBoxes() {
  const box = (id) => boxOf($(id));
  return { geometry: box("chart-geometry"), bars: box("chart-bars"), everyHead: box("chart-every-head"), alignment: box("alignment"),
    cache: box("chart-cache") };
}

/** The current step's pictures: the heatmaps' outlines, the geometry, the bars, every head, the arithmetic. */
function drawStep(read = null) {
  const view = state.view();
  const step = state.field("step");
  for (const id of ["chart-stage1", "chart-stage2", "chart-stage3"]) moveOutline($(id), step);
  const boxes = read || stepBoxes(); // after the outlines moved (they change the page too)
  drawGeometryPanel(boxes.geometry); // before the heavier panels: its lines follow the key at once
  drawBars(boxes.bars);
  drawEveryHead(boxes.everyHead);
  drawAlignment(boxes.alignment);
  drawArithmetic();
  recordBox($("chart-cache"), boxes.cache);
  renderTranslationStep(view, step, t, boxes.cache);
  performance.mark("attention-step"); // read by bench/bench_page.py
}

/** The Transformer's masked self-attention (translation.js), at its box's current size. */
function drawSelf(box = boxOf($("chart-self"))) {
  if (recordBox($("chart-self"), box)) drawSelfAttention(state.view(), box);
}

/** Its cache of keys as the current step reads it, at its box's current size. */
function drawCache(box = boxOf($("chart-cache"))) {
  if (recordBox($("chart-cache"), box)) renderTranslationStep(state.view(), state.field("step"), t, box);
}

/** A sentence longer than MANY tokens: no values in the cells, thinned labels, ranked bars, one heatmap a row. */
function isLarge(view) {
  return Math.max(view.tokens.queries.length, view.tokens.keys.length) > MANY;
}

function drawBars(box = boxOf($("chart-bars"))) {
  const view = state.view();
  const slot = $("chart-bars");
  if (!recordBox(slot, box)) return;
  const weights = view.head.weights[state.field("step")];
  bars(slot, { labels: view.tokens.keys, values: weights, font: box.font, width: box.width, height: box.height,
    ranked: Boolean(state.field("rank")), many: isLarge(view), fill: box.fill, t });
}

function drawAlignment(box = boxOf($("alignment"))) {
  const view = state.view();
  const slot = $("alignment");
  if (!recordBox(slot, box)) return;
  const step = state.field("step");
  const { queries, keys } = view.tokens;
  const weights = view.head.weights;
  const strongest = keys[weights[step].indexOf(Math.max(...weights[step]))];
  alignment(slot, { queries, keys, weights, step, font: box.font, height: box.height, queryOnTop: !["cross", "translate"].includes(view.mode),
    label: `${t.alignment}${t.colon}${queries[step]} → ${strongest}` });
}

/** The queries and keys in one plane, the current query's lines drawn and written out (geometry.js). */
function drawGeometryPanel(box = boxOf($("chart-geometry"))) {
  const view = state.view();
  const slot = $("chart-geometry");
  if (!recordBox(slot, box)) return;
  const step = state.field("step");
  slot.hidden = view.geometry === null; // rnnencdec: no attention, nothing to draw
  if (view.geometry === null) {
    $("geometry-note").textContent = t.mt_no_attention;
    $("geometry-lines").replaceChildren();
    return;
  }
  performance.mark("geometry-start"); // read by bench/bench_geometry.py
  $("geometry-note").textContent = planeNote(view, t, label);
  const mark = () => performance.mark("attention-geometry"); // read by bench/bench_geometry.py
  const plotted = drawGeometry(slot, $("geometry-lines"), { view, step, box, t, label, rows: onePanel() ? 6 : 8 });
  if (plotted) plotted.then(mark);
  else mark();
}

async function drawArithmetic() {
  const view = state.view();
  if (view.arithmetic === null) { // a real model's word units: the arithmetic is the pieces'; rnnencdec has none
    $("arithmetic").textContent = view.translation ? t.mt_no_attention : t.units_words_note;
    return;
  }
  const board = await state.loadArithmetic();
  if (!board || board.step !== state.field("step") || view !== state.view()) return;
  arithmetic($("arithmetic"), { board, keys: view.tokens.keys, query: view.tokens.queries[board.step], t, norms: showsNorm(view),
    names: { vectors: view.names.vectors && view.names.vectors.map(label), values: view.names.values && view.names.values.map(label) } });
  fitArithmetic();
  performance.mark("attention-arithmetic");
}

const MIN_SLIDE_FONT = 14; // px: the arithmetic as a slide is never written smaller

/**
 * The arithmetic as a slide holds every row: its type shrinks until the table fits the screen (the keyboard's
 * ↑ ↓ change slides, so nothing may hide in a scroll area), down to MIN_SLIDE_FONT.
 */
function fitArithmetic() {
  const slot = $("arithmetic");
  slot.style.fontSize = "";
  if (!onePanel() || !slot.closest(".current-panel")) return;
  let size = parseFloat(getComputedStyle(slot).fontSize);
  while (slot.scrollHeight > slot.clientHeight + 1 && size > MIN_SLIDE_FONT) {
    size = Math.max(MIN_SLIDE_FONT, size - 1);
    slot.style.fontSize = `${size}px`;
  }
}

/** What stage n's heatmap shows: its matrix, rows and columns (stage 3: the output's features). */
function stageMatrix(n) {
  const view = state.view();
  const { queries, keys } = view.tokens;
  const head = view.head;
  if (n === 1) return { z: head.scores, rows: queries, cols: keys };
  if (n === 2 && view.value_zeroing) return { z: view.value_zeroing.layer_map, rows: queries, cols: keys, zmin: 0 }; // per layer
  if (n === 2 && showsNorm(view)) { // weight × value norm: from 0 to the head's largest (the server's numbers)
    const z = view.attribution.contributions;
    return { z, rows: queries, cols: keys, mask: head.mask, zmin: 0, zmax: Math.max(...z.flat()) || 1 };
  }
  if (n === 2) return { z: head.weights, rows: queries, cols: keys, mask: head.mask, zmin: 0, zmax: 1 };
  const width = head.output[0].length;
  const labelled = Boolean(state.view().names.output); // the lexicon's features, else dimensions d0, d1...
  return { z: head.output, rows: queries, cols: outputColumns(width), dims: labelled ? null : t.dimensions.replace("{count}", String(width)) };
}

/** Stage 2 shows weight × value norm rather than the weights (`attribution=norm`; the answer then has the matrix). */
function showsNorm(view) {
  return view.params.attribution === "norm" && Boolean(view.attribution && view.attribution.contributions);
}

/** The switch under stage 2: the view's choice pressed, the choices the form's select cannot send hidden; the chart's
 * title, help line and colour note say what it shows. */
function syncAttribution(view) {
  const select = $("attribution");
  const shown = view.params.attribution;
  for (const button of document.querySelectorAll("#attribution-toggle button")) {
    const option = select && [...select.options].find((o) => o.value === button.dataset.attribution);
    button.hidden = !option || option.disabled;
    button.setAttribute("aria-pressed", String(button.dataset.attribution === shown));
  }
  document.querySelector(".attribution-row").hidden = !view.attribution; // rnnencdec: no attention, nothing to switch
  const norm = showsNorm(view);
  const zeroing = Boolean(view.value_zeroing); // value zeroing: one map per layer (its note says so under the help)
  const none = !view.attribution && Boolean(view.translation); // rnnencdec: no attention, so no weights to draw
  const title = none ? t.mt_stage2_none : zeroing ? t.stage2_zeroing : norm ? t.stage2_norm : t.stage2;
  $("stage2-title").textContent = title;
  $("stage2-help").textContent = none ? t.mt_stage2_none_help : norm ? t.stage2_help_norm : t.stage2_help;
  $("scale-note2").textContent = zeroing ? t.bright2_zeroing : norm ? t.bright2_norm : t.bright2;
  $("chart-stage2").setAttribute("aria-label", title);
  // stage 3 without attention: the one vector C, the same row at every step (nothing weighted or summed)
  const c = view.translation && view.translation.context_vector;
  $("stage3-title").textContent = c ? t.mt_stage3_none : t.stage3;
  $("stage3-help").textContent = c ? t.mt_stage3_none_help.replace("{size}", String(c.length)) : t.stage3_help;
  $("chart-stage3").setAttribute("aria-label", c ? t.mt_stage3_none : t.stage3);
}

/** Stage n's heatmap at its box's current size (`box` when it was read already). */
function drawStage(n, box = boxOf($(`chart-stage${n}`))) {
  const el = $(`chart-stage${n}`);
  // rnnencdec: no scores and no weights (its stage 1 and stage 2's chart are not shown)
  if (!recordBox(el, box) || (n < 3 && document.body.classList.contains("no-attention"))) return;
  heatmap(el, { ...stageMatrix(n), ...box, step: state.field("step") });
}

/** Where the three stage heatmaps stand, read in one go. */
function stageBoxes() {
  return [1, 2, 3].map((n) => boxOf($(`chart-stage${n}`)));
}

/** The three stage heatmaps and the head overview: redrawn when the data or the theme changes. */
function drawStages(boxes = stageBoxes()) {
  const view = state.view();
  [1, 2, 3].forEach((n, i) => drawStage(n, boxes[i]));
  if (view.overview) {
    overviewGrid($("head-grid"), { overview: view.overview, layer: view.model ? view.params.layer : 0, head: view.focus ? view.focus.head : state.field("head") || 0, t, onPick: pickHead });
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
  if (open("table-stage1") && head.scores) matrixTable($("table-stage1"), { rows: queries, cols: keys, z: head.scores, caption: t.stage1 });
  if (open("table-stage2")) {
    const zeroing = view.value_zeroing; // one map per layer: no head's norms beside it
    const norms = !zeroing && view.attribution && { label: t.value_norm, values: view.attribution.value_norms, caption: t.value_norms_caption };
    const caption = zeroing ? $("zeroing-note").textContent : showsNorm(view) ? t.norm_table : t.stage2;
    matrixTable($("table-stage2"), { ...stageMatrix(2), caption, norms });
  }
  if (open("table-stage3")) matrixTable($("table-stage3"), { rows: queries, cols: outputColumns(head.output[0].length), z: head.output, caption: t.stage3 });
  if (open("table-geometry") && view.geometry) { // every point of the plane, the words the picture had no room for too
    const g = view.geometry;
    const rows = [...queries.map((word) => `${word} (${t.geometry_query})`), ...keys.map((word) => `${word} (${t.geometry_key})`)];
    matrixTable($("table-geometry"), { rows, cols: g.axes.map(label), z: [...g.queries, ...g.keys], caption: t.geometry_points });
  }
  if (open("table-embeddings") && view.embeddings) {
    const { rows, cols, z } = embeddingMatrix();
    matrixTable($("table-embeddings"), { rows, cols, z, caption: t.embeddings });
  }
}

/** A real model's attention rollout up to the current layer (the summaries panel). */
function drawRollout(box = boxOf($("chart-rollout"))) {
  const view = state.view();
  const el = $("chart-rollout");
  if (!recordBox(el, box) || !view.summaries) return;
  heatmap(el, { z: view.summaries.rollout, rows: view.tokens.queries, cols: view.tokens.keys, zmin: 0, ...box, height: null, fill: false });
}

/** Value zeroing's rollout up to the current layer, beside the attention rollout (when the link asks for it). */
function drawZeroingRollout(box = boxOf($("chart-zeroing-rollout"))) {
  const view = state.view();
  const el = $("chart-zeroing-rollout");
  if (!recordBox(el, box) || !view.value_zeroing) return;
  heatmap(el, { z: view.value_zeroing.rollout, rows: view.tokens.queries, cols: view.tokens.keys, zmin: 0, ...box, height: null, fill: false });
}

/** Say on stage 2 when it shows value zeroing (one map per layer) instead of the head's weights. */
function writeZeroingNote(view) {
  const zeroing = view.value_zeroing;
  $("zeroing-note").hidden = !zeroing;
  $("zeroing-note").textContent = zeroing ? t.zeroing_note.replace("{layer}", String(view.params.layer)) : "";
  $("zeroing-rollout").hidden = !zeroing;
}

function drawEmbeddings() {
  const el = $("chart-embeddings");
  const box = boxOf(el);
  if (!recordBox(el, box) || !state.view().embeddings) return;
  const { rows, cols, z } = embeddingMatrix();
  heatmap(el, { z, rows, cols, ...box, height: null, fill: false });
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

/**
 * The page's screen modes from the view fields: presentation (large type, dark), slide mode and /embed
 * (one panel at a time, sized to the screen: the slide's panel, or the stage in focus).
 */
function applyScreen() {
  const body = document.body;
  const present = Boolean(state.field("present"));
  const slide = state.field("slide");
  const panels = slidePanels();
  const shown = page.embed || slide ? slideAt(slide || state.field("stage"), panels) : null;
  body.classList.toggle("present", present);
  body.classList.toggle("slides", Boolean(slide));
  body.classList.toggle("one-panel", Boolean(shown));
  body.classList.toggle("many", isLarge(state.view()));
  body.dataset.stage = String(state.field("stage"));
  stackStages();
  document.querySelectorAll("[data-slide-panel]").forEach((panel) => panel.classList.toggle("current-panel", panel === shown));
  $("present-toggle").setAttribute("aria-pressed", String(present));
  $("slide-toggle").setAttribute("aria-pressed", String(Boolean(slide)));
  $("panel-prev").disabled = !shown || shown === panels[0];
  $("panel-next").disabled = !shown || shown === panels[panels.length - 1];
  fitArithmetic();
}

/** The notes on words the lexicon or the model lacks: each a sentence of its own, on a line of its own. */
function writeUnknown(view) {
  const unknownLabel = view.mode === "model" ? t.unknown_model : t.unknown;
  const mt = view.translation; // a translator's own terms: the typed <unk> each English word is read as (Chinese ones: its panel)
  const unknown = mt ? [t.mt_unknown, mt.unknown_source.map((w, i) => `${w} → ${mt.unknown_read_as[i]}`), ", "]
    : [unknownLabel, view.unknown_tokens, ", "];
  const guesses = (view.guessed_roles || []).map((g) => `${g.word} → ${label(g.role)} (${g.how})`);
  const readAs = (view.read_as || []).map((r) => `${r.word} → ${r.sense}`);
  const notes = [unknown, [t.guessed, guesses, "; "], [t.read_as, readAs, "; "]]
    .filter(([, items]) => items.length) // a full-width colon （：） needs no space after it
    .map(([name, items, between]) => `${name}${name.endsWith("：") ? "" : " "}${items.join(between)}${t.sentence_end}`);
  $("unknown").replaceChildren(...noteLines(notes));
  $("unknown").hidden = !notes.length;
}

function render() {
  const view = state.view();
  renderTranslation(view, t); // first: its body classes say which panels this view has (slide mode reads them)
  applyScreen();
  document.body.classList.toggle("has-heads", Boolean(view.overview));
  document.body.classList.toggle("has-embeddings", Boolean(view.embeddings));
  writeUnknown(view);
  const hasChinese = /[\u3400-\u9fff]/.test(view.params.source || "");
  // a translator's note states its limit of English words from the answer (the one constant the server checks)
  const max = view.translation ? view.translation.vocabulary.max_source_words : "";
  const modelNote = view.model ? (t[`model_note_${view.model.name}`] || "").replace("{max}", String(max)) : "";
  // a translator's note opens its translation panel, below the stages (which keep the first screen of a projector)
  $("model-note").textContent = view.translation || (view.model && view.model.name === "minilm" && !hasChinese) ? "" : modelNote;
  $("mt-note").textContent = view.translation ? modelNote : "";
  renderMatrices(view);
  writeZeroingNote(view);
  syncGeometryTools(view);
  syncAttribution(view);
  renderSummaries(view, { summary: state.field("summary"), t, onPick: pickHead,
    setSummary: (summary) => { state.setFields({ summary }); render(); } });
  const preset = currentPreset();
  $("preset").value = preset ? preset.id : "";
  $("lesson").textContent = preset ? preset.lesson : "";
  $("api-link").setAttribute("href", state.apiPath());
  $("compare-link").setAttribute("href", compareLink());
  writeStep(view, state.field("step")); // before the charts: the room they take is settled first
  // Every chart's box is read once the page's words are written and before any chart is drawn: one layout.
  const boxes = { stages: stageBoxes(), step: stepBoxes(), self: boxOf($("chart-self")),
    rollout: boxOf($("chart-rollout")), zeroingRollout: boxOf($("chart-zeroing-rollout")) };
  drawSelf(boxes.self);
  drawRollout(boxes.rollout);
  drawZeroingRollout(boxes.zeroingRollout);
  drawStages(boxes.stages);
  drawStep(boxes.step);
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
    p: togglePresent, P: togglePresent, f: toggleFullscreen, F: toggleFullscreen, s: toggleSlides, S: toggleSlides,
    "?": () => toggleHelp(), Escape: onEscape, " ": togglePlay,
  };
  if (state.field("slide")) { // slide mode: the up and down keys (and a presenter's clicker) change the panel
    Object.assign(actions, { ArrowUp: () => movePanel(-1), PageUp: () => movePanel(-1), ArrowDown: () => movePanel(1), PageDown: () => movePanel(1) });
  }
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
    if (event.target.name === "_mode" || event.target.id === "preset") return; // an example opens its own link
    if (event.target.dataset.mirrors) controls.syncMirrors(event.target);
    else controls.syncMirrors();
    if (event.target.name === "model") { // its own layers and heads; a translator opens on its best-aligned head
      controls.modelChoices(event.target.value, page.models, { opening: true });
      state.setFields({ head: null }); // the previous model's head is not this one's (the Transformer's is in the form)
    }
    if (event.target.tagName === "SELECT") controls.applyMode(controls.activeMode()); // a choice may meet a requirement
    scheduleRecompute(event);
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "_mode") onModeChange();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(state.timers().typing);
    recompute();
  });
  $("preset").addEventListener("change", (event) => {
    const preset = page.presets.find((p) => p.id === event.target.value);
    if (!preset) return;
    const query = new URLSearchParams(preset.link.slice(preset.link.indexOf("?") + 1));
    if (state.field("present")) query.set("present", "true"); // an example keeps the screen's mode
    openLink(query.toString(), { push: true });
  });
  $("heads-auto").addEventListener("click", autoHeads);
  for (const button of document.querySelectorAll("#attribution-toggle button")) { // the form's select, as if chosen there
    button.addEventListener("click", () => {
      const select = $("attribution");
      if (!select || select.value === button.dataset.attribution) return;
      select.value = button.dataset.attribution;
      select.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  wireGeometryTools({ setPlane: (plane) => { state.setFields({ plane }); recompute(state.currentQuery(), { push: true }); } });
  $("prev").addEventListener("click", () => setStep(state.field("step") - 1));
  $("next").addEventListener("click", () => setStep(state.field("step") + 1));
  $("play").addEventListener("click", togglePlay);
  $("fullscreen-toggle").addEventListener("click", toggleFullscreen);
  $("slide-toggle").addEventListener("click", toggleSlides);
  $("slide-exit").addEventListener("click", toggleSlides);
  $("panel-prev").addEventListener("click", () => movePanel(-1));
  $("panel-next").addEventListener("click", () => movePanel(1));
  document.querySelectorAll("details.table").forEach((details) => details.addEventListener("toggle", fillTables));
  wireChrome({ t, sharePath: state.pagePath, pathWithLanguage: (lang) => state.pagePathWith({ lang }), togglePresent });
  window.addEventListener("popstate", () => openLink(location.search.slice(1), { push: false }));
  document.addEventListener("keydown", onKey);
}

state.setFields({}); // the address bar shows the canonical link of what the page shows
controls.applyMode(state.view().mode);
exportButtons();
wire();
setupLive({ t, showView: (view) => openLink(view, { push: false }) });
render();
watchSizes();
document.body.dataset.ready = "true";
