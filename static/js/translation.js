// A trained translator's view (mode translate): what it produced and how sure it was of each word, the
// learned alignment beside the corpus's gold one, its vocabulary and limits, RNNencdec's one context vector C,
// and for the Transformer the decoder's masked self-attention with its cache of keys and values, which grows by
// one row per word. Every number comes from the server's answer (view.translation); nothing is computed here.
import { heatmap, moveOutline } from "./charts.js";
import { fmt, fmtVector, fmtWeight } from "./format.js";
import { el, noteLines } from "./panels.js";

const $ = (id) => document.getElementById(id);
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));

/** Everything that changes with the view (not with the step). */
export function renderTranslation(view, t) {
  const facts = view.translation;
  document.body.classList.toggle("has-translation", Boolean(facts));
  document.body.classList.toggle("no-attention", Boolean(facts) && view.head.scores === null);
  document.body.classList.toggle("has-self-attention", Boolean(facts && facts.self_attention));
  if (!facts) return;
  const model = t[`model_label_${view.model.name}`] || view.model.label; // in the page's language
  const replaced = new Map(facts.replaced.map((r) => [r.position, r]));
  const shown = (word, i) => (replaced.has(i) && replaced.get(i).origin !== "none" ? `〔${facts.output[i]}〕` : word);
  const produced = facts.target.length ? facts.target.map(shown).join(" ") : "∅";
  const how = facts.decoding === "forced" ? t.mt_forced : facts.decoding === "beam" ? fill(t.mt_beam, { beam: facts.beam }) : t.mt_greedy;
  const end = facts.end_probability === null ? "—" : fmtWeight(facts.end_probability);
  $("mt-summary").textContent = fill(t.mt_summary, { model, how, target: produced, end });
  const limits = fill(t.mt_limits, { source: facts.vocabulary.source, target: facts.vocabulary.target, max: facts.vocabulary.max_source_words });
  $("mt-limits").textContent = facts.unknown_target.length ? `${limits} ${t.mt_unknown_target} ${facts.unknown_target.join(", ")}` : limits;
  $("mt-replaced").textContent = replacedNote(facts, t);
  $("mt-replaced").hidden = !facts.replaced.length;
  $("mt-check").replaceChildren(...noteLines(checkNotes(facts, t)));
  renderWords(view, t);
  const c = facts.context_vector;
  $("mt-context").hidden = !c;
  if (c) $("mt-context").textContent = fill(t.mt_context, { size: c.length, vector: fmtVector(c, 3, null, 8) });
}

/** Each <unk> the model wrote, and what stands in its place: "〔小偷〕 ← thief". */
function replacedNote(facts, t) {
  if (!facts.replaced.length) return "";
  if (facts.replaced.every((r) => r.origin === "none")) return t.mt_replaced_none;
  const items = facts.replaced.map((r) => {
    const from = `〔${r.word}〕 ← ${facts.source[r.source]}`;
    return r.origin === "english" ? `${from} (${t.mt_replaced_english})` : from;
  });
  return `${t.mt_replaced} ${items.join("; ")}`;
}

/**
 * The translation checked against the dictionary (view.translation.check), each a sentence on a line of its own:
 * the first choices the candidate list ruled out (view.translation.ruled_out), the words it made up, the English
 * words it left out (with the attention each received), or that neither happened; beam search's likeliest
 * translation when the end guard chose another; then every English word's coverage, its column of stage 2 summed.
 */
function checkNotes(facts, t) {
  const check = facts.check;
  const received = (j) => (check.coverage ? ` (${t.mt_received} ${fmt(check.coverage[j], 2)})` : "");
  const notes = [];
  if (facts.ruled_out.length) {
    const instead = (r) => (r.position < facts.output.length ? facts.output[r.position] : t.mt_ruled_end);
    const ended = (r) => fill(t.mt_ruled_left_out, { words: r.left_out.join(", ") });
    const reason = (r) => ({ loop: t.mt_ruled_loop, left_out: ended(r) })[r.reason] || t.mt_ruled_made_up;
    const why = (r) => (r.reason !== "left_out" && r.left_out.length ? `${reason(r)}; </s>: ${ended(r)}` : reason(r));
    const items = facts.ruled_out.map((r) => `${r.word} (${fmtWeight(r.probability)}) → ${instead(r)}: ${why(r)}`).join("; ");
    notes.push(fill(t.mt_ruled_out, { items }));
  } else if (facts.candidates === "dictionary") notes.push(t.mt_ruled_out_none);
  const likeliest = facts.likeliest;
  if (likeliest) {
    const values = { output: likeliest.output.join(" "), lp: fmt(likeliest.log_probability, 2), words: likeliest.left_out.join(", ") };
    notes.push(fill(t.mt_likeliest, { ...values, chosen: fmt(facts.log_probability, 2) }));
  }
  if (check.invented.length) notes.push(fill(t.mt_check_invented, { words: check.invented.map((i) => facts.output[i]).join(", ") }));
  if (check.left_out.length) notes.push(fill(t.mt_check_left_out, { words: check.left_out.map((j) => `${facts.source[j]}${received(j)}`).join(", ") }));
  if (!notes.length) notes.push(t.mt_check_clean);
  if (check.coverage) notes.push(fill(t.mt_coverage, { pairs: facts.source.map((w, j) => `${w} ${fmt(check.coverage[j], 2)}`).join(" · ") }));
  return notes;
}

/** What the dictionary says word i translates, and whether attention (the head shown) looks there: "jerry ✓". */
function translatesText(facts, i, t) {
  const found = facts.check.translates[i] || [];
  if (!found.length) return facts.check.content[i] ? t.mt_made_up : "—";
  const words = found.map((j) => facts.source[j]).join(" ");
  if (!facts.learned_alignment) return words;
  return `${words} ${found.includes(facts.learned_alignment[i]) ? "✓" : "✗"}`;
}

/** One row per produced word: its probability, where the head shown looks most, what it translates by the dictionary, and the corpus's gold link. */
function renderWords(view, t) {
  const facts = view.translation;
  const source = facts.source;
  const gold = facts.gold;
  const sameWords = gold && gold.target.join(" ") === facts.target.join(" ");
  const drops = facts.leave_one_out; // (n_words, n_source) when the link asks (attribution=leave-one-out)
  const attends = Boolean(facts.learned_alignment); // rnnencdec: no attention, no column of where it looks
  // the gold column only where the corpus knows the sentence (a typed one has none: the note below says so)
  const columns = [t.mt_word, t.mt_probability, ...(attends ? [t.mt_learned] : []), t.mt_translates, ...(gold ? [t.mt_gold] : []),
    ...(drops ? [t.mt_loo] : [])];
  const head = el("tr", {}, ...columns.map((text) => el("th", { scope: "col", text })));
  const rows = facts.target.map((word, i) => {
    let goldText = "—";
    if (sameWords) {
      const links = gold.alignment[i];
      const agrees = facts.learned_alignment && links.includes(facts.learned_alignment[i]);
      goldText = `${links.map((j) => source[j]).join(" ")}${facts.learned_alignment ? (agrees ? " ✓" : " ✗") : ""}`;
    }
    const cells = [el("td", { text: fmtWeight(facts.probabilities[i]) }),
      ...(attends ? [el("td", { text: source[facts.learned_alignment[i]] })] : []),
      el("td", { class: facts.check.invented.includes(i) ? "made-up" : null, text: translatesText(facts, i, t) }),
      ...(gold ? [el("td", { text: goldText })] : [])];
    if (drops) cells.push(el("td", { class: "loo", text: costliest(drops[i], source) }));
    const r = facts.replaced.find((x) => x.position === i && x.origin !== "none");
    return el("tr", { "data-step": i }, el("th", { scope: "row", text: r ? `${word} → 〔${r.word}〕` : word }), ...cells);
  });
  // where the head shown looks (the Transformer's heads), where its one attention looks (RNNsearch), or neither
  const words = !attends ? t.mt_words_caption_none : view.n_heads > 1 ? t.mt_words_caption : t.mt_words_caption_one;
  const caption = el("caption", { text: gold ? `${words}${t.mt_words_caption_gold}` : words });
  const table = el("table", { class: "data" }, caption, el("thead", {}, head), el("tbody", {}, ...rows));
  // wider than its column (six columns at 1024 px): it scrolls in its own region, by keys too, never the page
  $("mt-words").replaceChildren(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": caption.textContent }, table));
  const note = !gold ? t.mt_no_gold : sameWords ? "" : fill(t.mt_gold_other, { target: gold.target.join(" ") });
  $("mt-gold").textContent = note;
  $("mt-gold").hidden = !note;
}

/** The English word whose removal costs a word the most, with the drop in its probability: "jerry −0.93". */
function costliest(row, source) {
  const j = row.indexOf(Math.max(...row));
  return row[j] > 0 ? `${source[j]} −${fmtWeight(row[j])}` : "—"; // no word's removal lowers it
}

/**
 * The Transformer's decoder self-attention (rows: steps; columns: what was fed in), masked above the diagonal, in
 * `box` (read once renderTranslation has shown or hidden its panel).
 */
export function drawSelfAttention(view, box) {
  const self = view.translation && view.translation.self_attention;
  if (!self || !box.width) return;
  // as tall as its rows need, or filling its room when the translation is a slide (box.fill)
  heatmap($("chart-self"), { z: self.weights, rows: view.tokens.queries, cols: self.keys, mask: self.mask, zmin: 0, zmax: 1,
    ...box, height: box.fill ? box.height : null, fill: box.fill });
}

/** What moves with the step: the outlined rows, the current word's row, and the cache as the step reads it. */
export function renderTranslationStep(view, step, t, box) {
  const facts = view.translation;
  if (!facts) return;
  for (const row of $("mt-words").querySelectorAll("tr[data-step]")) row.classList.toggle("current", Number(row.dataset.step) === step);
  const self = facts.self_attention;
  if (!self) return;
  moveOutline($("chart-self"), step);
  const rows = self.keys.slice(0, step + 1);
  $("mt-cache-note").textContent = fill(t.mt_cache, { rows: step + 1, word: view.tokens.queries[step], width: self.k[0].length });
  if (box && box.width) {
    const cols = self.k[0].map((_, j) => `d${j}`);
    heatmap($("chart-cache"), { z: self.k.slice(0, step + 1), rows, cols, ...box, height: null, fill: false, dims: fill(t.dimensions, { count: cols.length }) });
  }
  const weights = self.weights[step].slice(0, step + 1);
  $("mt-self-pairs").textContent = rows.map((word, j) => `(${word}, ${fmt(weights[j], 2)})`).join(" ");
}
