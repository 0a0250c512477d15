// The form: which controls apply in which mode, what the user typed, and showing a view's settings.
// Every rule comes from the data the server rendered on each control (data-modes, data-requires), which
// in turn comes from the parameter declarations (app/view/state.py): no parameter fact is written here.

const form = () => document.getElementById("controls");

/** The kind of view the form describes: the checked mode radio. */
export function activeMode() {
  const mode = form().querySelector('input[name="_mode"]:checked').value;
  // a trained translator is encoder-decoder attention too: chosen in that mode's model select, it has its own controls
  const chosen = form().elements.namedItem("model")?.selectedOptions?.[0];
  if (mode === "cross" && chosen && modesOf(chosen).includes("translate")) return "translate";
  return mode;
}

function modesOf(node) {
  return (node.dataset.modes || "").split(" ").filter(Boolean);
}

function requirementsMet(node) {
  if (!node.dataset.requires) return true;
  const requires = JSON.parse(node.dataset.requires);
  return Object.entries(requires).every(([other, allowed]) => {
    const control = form().elements.namedItem(other);
    return control && allowed.map(String).includes(control.value);
  });
}

/**
 * Show the controls of `mode` and enable those whose requirements hold; the others are hidden (another mode)
 * or disabled with the reason beside them (a requirement). Disabled controls are not sent, so every
 * combination the form can send is valid.
 */
export function applyMode(mode) {
  for (let pass = 0; pass < 2; pass++) applyModeOnce(mode); // a changed choice may meet or break a requirement
}

/** The model's layer and head selects: not offered when the model has one layer (or one head) to choose from. */
const NUMBERED = ["layer", "head"];

function applyModeOnce(mode) {
  document.body.className = document.body.className.replace(/\bmode-\w+/, "").trim() + ` mode-${mode}`;
  for (const node of form().querySelectorAll("[data-param]")) {
    const single = NUMBERED.includes(node.dataset.param) && node.querySelector("select").options.length <= 1;
    const applies = modesOf(node).includes(mode) && !single;
    const met = requirementsMet(node);
    node.hidden = !applies;
    node.classList.toggle("unmet", applies && !met);
    for (const control of node.querySelectorAll("input, select, textarea")) control.disabled = !applies || !met;
    for (const option of node.querySelectorAll("option[data-modes]")) {
      option.hidden = !modesOf(option).includes(mode);
      if (!option.dataset.unavailable) option.dataset.unavailable = option.disabled ? "true" : "false";
      option.disabled = option.hidden || option.dataset.unavailable === "true" || !requirementsMet(option);
    }
    const select = node.querySelector("select");
    if (select && applies && select.selectedOptions[0]?.disabled) {
      const first = [...select.options].find((o) => !o.disabled);
      if (first) select.value = first.value;
    }
  }
  for (const details of form().querySelectorAll("details[data-modes]")) details.hidden = !modesOf(details).includes(mode);
}

/** What the user typed, as a query string: the enabled controls' values, unformatted (the server writes links). */
export function formQuery() {
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form())) {
    if (name.startsWith("_")) continue; // the mode radio is not a parameter: the values imply the mode
    const text = String(value);
    if (text.trim() === "" && !["source", "target"].includes(name)) continue;
    query.set(name, text);
  }
  return query;
}

function setValue(control, value) {
  if (control.type === "checkbox") control.checked = Boolean(value);
  else if (control.classList.contains("matrix")) control.value = value ? value.map((row) => row.join(" ")).join("\n") : "";
  else if (Array.isArray(value)) control.value = value.join(",");
  else control.value = value === null || value === undefined ? "" : String(value);
}

/** Show a computed view's settings in the form (after Back/Forward, an example, or a link). */
export function fill(params, mode, models) {
  const radio = mode === "translate" ? "cross" : mode; // the translators are offered in encoder-decoder mode
  const modeRadio = form().querySelector(`input[name="_mode"][value="${radio}"]`);
  if (modeRadio) modeRadio.checked = true;
  modelChoices(params.model, models);
  for (const node of form().querySelectorAll("[data-param]")) {
    const name = node.dataset.param;
    const control = form().elements.namedItem(name);
    if (control && name in params) setValue(control, params[name]);
  }
  const head = form().elements.namedItem("head");
  if (head && params.head === null) head.value = "0"; // a translator's head 0 when the link names none
  syncMirrors();
  applyMode(mode);
}

/**
 * The layer and head choices of `model` (its own numbers of layers and heads, from the page data); `opening`: set
 * to the layer and head it opens on (a translator's, chosen on the server by app/view/models.py's opening_head).
 */
export function modelChoices(model, models, { opening = false } = {}) {
  const facts = models[model];
  if (!facts) return;
  const [layer, head] = NUMBERED.map((name) => form().elements.namedItem(name));
  if (layer) numberedOptions(layer, facts.n_layers);
  if (head) numberedOptions(head, facts.n_heads);
  if (opening && facts.opens) {
    if (layer) layer.value = String(facts.opens.layer);
    if (head) head.value = String(facts.opens.head);
  }
}

/** Numbered choices 0 .. count - 1 (a model's layers, or its heads), keeping the chosen one when it is still there. */
function numberedOptions(select, count) {
  if (select.options.length === count) return;
  const current = Math.min(Number(select.value) || 0, count - 1);
  select.replaceChildren(
    ...Array.from({ length: count }, (_, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = String(i);
      return option;
    }),
  );
  select.value = String(current);
}

/** A slider and its number box show the same value. */
export function syncMirrors(changed = null) {
  for (const slider of form().querySelectorAll("input[data-mirrors]")) {
    const box = document.getElementById(slider.dataset.mirrors);
    if (changed === slider) box.value = slider.value;
    else if (box.value !== "") slider.value = box.value;
    const output = document.getElementById(`${slider.dataset.mirrors}-value`);
    if (output) output.textContent = box.value;
  }
}

export function clearErrors() {
  form().querySelectorAll(".error").forEach((p) => { p.textContent = ""; });
  form().querySelectorAll("[aria-invalid]").forEach((c) => c.removeAttribute("aria-invalid"));
}

/** An error answer next to the control it names (or at the end of the form). */
export function showError(body) {
  const field = Array.isArray(body.detail) ? body.detail[0].field : "form";
  const own = document.getElementById(`${field}-error`);
  const slot = own || document.getElementById("form-error");
  // beside its own box the message needs no field name (the API's message starts with it, in English)
  slot.textContent = own && body.detail[0].msg ? body.detail[0].msg : body.message || String(body.detail);
  const control = form().elements.namedItem(field);
  if (control && control.setAttribute) control.setAttribute("aria-invalid", "true");
}

/** Fill the form from an example's query when the exercise's boxes are empty, so choosing the mode shows something. */
export function exampleExercise(query) {
  const box = form().elements.namedItem("q");
  if (!box || box.value.trim()) return;
  for (const [name, value] of new URLSearchParams(query)) {
    const control = form().elements.namedItem(name);
    if (control) control.value = control.classList.contains("matrix") ? value.split(";").join("\n") : value;
  }
}
