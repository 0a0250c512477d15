// The page's state, and the only module that keeps any: the view the server computed, the view fields
// (step, head, stage, language, presentation...), the URL and history, and the requests in flight.
//
// The server writes every link. A computed view comes with `query`, the canonical query string of what
// it computes; the page appends the view fields in the order and form the parameter declarations give
// (page data `params`), so the URL after any change is the one the server would write itself.

const data = JSON.parse(document.getElementById("page-data").textContent);

const state = {
  view: data.view, // the /api/attention answer being shown
  fields: {}, // view fields: name -> value
  arithmetic: data.view.arithmetic, // the current step's arithmetic (from the server)
  requests: { view: null, arithmetic: null }, // AbortControllers of the requests in flight
  timers: { typing: null, play: null },
  stale: false, // the form holds input the server refused: the charts show the last valid view
  following: Boolean(data.follow), // a student's page showing a live class's views (its address stays /live/<code>)
  urlListeners: [], // called after the URL changed (the live class publishes the teacher's view)
};

export const page = data; // read-only facts: strings, parameter declarations, routes, presets, models
export const VIEW_PARAMS = data.params.filter((p) => p.view);

/** Take the view fields of an answer; `changed` names fields the user changed while it was on its way
 * (a stage or presentation chosen while the next step's head was fetched): those stay as they are now. */
function adoptFields(params, changed = new Set()) {
  for (const p of VIEW_PARAMS) if (!changed.has(p.name)) state.fields[p.name] = params[p.name];
}
adoptFields(data.view.params);

export function view() {
  return state.view;
}

export function field(name) {
  return state.fields[name];
}

export function arithmetic() {
  return state.arithmetic;
}

export function timers() {
  return state.timers;
}

export function isStale() {
  return state.stale;
}

export function setStale(stale) {
  state.stale = stale;
}

/** A view field as the canonical link writes it: true, 3, zh (whole numbers, booleans and plain words). */
const linkText = (value) => String(value);

/** The view fields that differ from their defaults, in the declared order. */
export function viewQuery(fields = state.fields) {
  return VIEW_PARAMS.filter((p) => fields[p.name] !== null && fields[p.name] !== undefined && fields[p.name] !== p.default)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(linkText(fields[p.name]))}`)
    .join("&");
}

/** The canonical query of the current view: the server's compute query, then the view fields. */
export function currentQuery() {
  return [state.view.query, viewQuery()].filter(Boolean).join("&");
}

export function pagePath(base = data.embed ? data.routes.embed : data.routes.page) {
  const query = currentQuery();
  return query ? `${base}?${query}` : base;
}

/** The page's link with some view fields changed (the current entry is left as it is: for a new page). */
export function pagePathWith(changes) {
  const base = data.embed ? data.routes.embed : data.routes.page;
  const query = [state.view.query, viewQuery({ ...state.fields, ...changes })].filter(Boolean).join("&");
  return query ? `${base}?${query}` : base;
}

export function apiPath(route = data.routes.api_attention) {
  const query = currentQuery();
  return query ? `${route}?${query}` : route;
}

function writeUrl(push) {
  if (state.following) return; // a student following a live class keeps its /live/<code> address
  const path = pagePath();
  if (path === location.pathname + location.search) return;
  if (push) history.pushState(null, "", path);
  else history.replaceState(null, "", path);
  for (const listener of state.urlListeners) listener(path);
}

/** Call `listener(path)` after every change of the page's URL. */
export function onUrlChange(listener) {
  state.urlListeners.push(listener);
}

export function isFollowing() {
  return state.following;
}

/** Following a live class (the address stays /live/<code>) or not (the address is the view's link again). */
export function setFollowing(following) {
  state.following = following;
  if (!following) writeUrl(false);
}

/**
 * Ask the server for the view of `query` (what the user typed, or a link), with the current view fields.
 * On success the view, the view fields and the URL are the server's; on failure nothing changes.
 * Returns {ok, body} or {ok: false, body} (the error answer) or {aborted: true}.
 */
export async function load(query, { push = true, keepFields = true } = {}) {
  const params = new URLSearchParams(query);
  if (keepFields) {
    for (const p of VIEW_PARAMS) {
      if (!params.has(p.name) && state.fields[p.name] !== p.default && state.fields[p.name] !== null) {
        params.set(p.name, linkText(state.fields[p.name]));
      }
    }
  }
  state.requests.view?.abort();
  const controller = new AbortController();
  state.requests.view = controller;
  const sent = { ...state.fields };
  let response;
  let text;
  try {
    response = await fetch(`${data.routes.api_attention}?${params}`, { signal: controller.signal });
    text = await response.text(); // a newer request may abort this one while its body arrives
  } catch (error) {
    return error.name === "AbortError" ? { aborted: true } : { ok: false, body: { message: String(error) } };
  }
  if (controller.signal.aborted) return { aborted: true };
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: text.trim() || `HTTP ${response.status}` }; // 413/414 answer in plain text
  }
  if (!response.ok) return { ok: false, body };
  if (body.fixed) {
    // what every sentence at these settings shares, fetched once (the browser keeps it: its URL is its hash)
    try {
      body = withFixed(body, await fixedResource(body.fixed.href));
    } catch (error) {
      return { ok: false, body: { message: String(error) } };
    }
    if (controller.signal.aborted) return { aborted: true };
  }
  state.view = body;
  state.arithmetic = body.arithmetic;
  const changed = new Set(VIEW_PARAMS.map((p) => p.name).filter((name) => state.fields[name] !== sent[name]));
  adoptFields(body.params, changed);
  state.stale = false;
  writeUrl(push);
  return { ok: true, body };
}

const fixedResources = new Map(); // href -> the promise of its body: each resource asked once per page

/** The resource an answer's `fixed.href` names (app/view/fixed.py): every head's matrices and names. */
function fixedResource(href) {
  if (!fixedResources.has(href)) {
    const asked = fetch(href).then((response) => {
      if (!response.ok) throw new Error(`${href}: HTTP ${response.status}`);
      return response.json();
    });
    asked.catch(() => fixedResources.delete(href)); // asked again next time
    fixedResources.set(href, asked);
  }
  return fixedResources.get(href);
}

/** An answer and the resource it names put together: the view, number for number, as app/view/fixed.py's
 * whole_view does (the answer leaves out what its settings share, and what it would say twice). */
function withFixed(answer, fixed) {
  const shared = fixed.heads[answer.focus.head];
  const keys = answer.embeddings.keys ?? answer.embeddings.queries; // self-attention: the queries' vectors
  const head = {
    ...answer.head,
    v: answer.head.v ?? keys, // W_V is the identity: the keys' vectors
    weights: answer.head.weights ?? answer.focus.rows[answer.focus.head], // every head's weights are in focus.rows
    parameters: shared.parameters,
  };
  const step = answer.arithmetic.step;
  const weights = head.weights[step];
  const arithmetic = {
    ...answer.arithmetic,
    q: head.q[step],
    k: head.k,
    mask: head.mask[step],
    scores: head.scores[step],
    weights,
    output: head.output[step],
    weighted_values: head.v.map((value, j) => value.map((x) => weights[j] * x)),
  };
  const lines = answer.geometry.lines; // the arithmetic's q·k and the head's rows at the step
  const geometry = {
    ...answer.geometry,
    lines: {
      ...lines,
      dots: lines.dots ?? answer.arithmetic.dots,
      scores: head.scores[lines.step],
      weights: head.weights[lines.step],
      mask: head.mask[lines.step],
    },
  };
  return {
    ...answer,
    features: fixed.features,
    names: shared.names,
    named_head: shared.name ? { name: shared.name, question: shared.question } : null,
    head_note: shared.note,
    parameters: fixed.parameters,
    embeddings: { ...answer.embeddings, keys },
    head,
    arithmetic,
    geometry,
  };
}

/** Change view fields that need no new data (step, stage, presentation...): the URL follows at once. */
export function setFields(changes, { push = false } = {}) {
  Object.assign(state.fields, changes);
  writeUrl(push);
}

/** The arithmetic of the current step, from the server (its own small answer, cached by the browser). */
export async function loadArithmetic() {
  const step = state.fields.step;
  if (state.arithmetic && state.arithmetic.step === step) return state.arithmetic;
  state.requests.arithmetic?.abort();
  const controller = new AbortController();
  state.requests.arithmetic = controller;
  try {
    const response = await fetch(apiPath(data.routes.api_arithmetic), { signal: controller.signal });
    if (!response.ok) return null;
    const body = await response.json();
    if (state.fields.step !== step) return null; // the user stepped on meanwhile
    state.arithmetic = body.arithmetic;
    return state.arithmetic;
  } catch {
    return null;
  }
}
