// The compare page's state, and the only module of that page that keeps any: the comparison the server
// computed (both panes and the focus word), the URL and history, and the request in flight. As on the
// main page, the server writes every link (the answer's share_path); this module adopts it.

const data = JSON.parse(document.getElementById("page-data").textContent);

const state = {
  body: data.compare, // the /api/compare answer being shown
  request: null, // the AbortController of the request in flight
  typing: null, // the debounce timer of a pane's sentence box
};

export const page = data;

export function body() {
  return state.body;
}

export function timers() {
  return state;
}

/** The comparison's canonical query string (what follows the ? of its link). */
export function query() {
  return state.body.share_path.split("?")[1] || "";
}

/** The link of the comparison with some parameters replaced (values as typed; the server canonicalises). */
export function withChanges(changes) {
  const params = new URLSearchParams(query());
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") params.delete(name);
    else params.set(name, String(value));
  }
  return params.toString();
}

/** Ask the server for a comparison; on success it becomes the page's state and URL. */
export async function load(search, { push = true } = {}) {
  state.request?.abort();
  const controller = new AbortController();
  state.request = controller;
  let response;
  let text;
  try {
    response = await fetch(`${data.routes.api_compare}?${search}`, { signal: controller.signal });
    text = await response.text(); // a newer request may abort this one while its body arrives
  } catch (error) {
    return error.name === "AbortError" ? { aborted: true } : { ok: false, body: { message: String(error) } };
  }
  if (controller.signal.aborted) return { aborted: true };
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { message: text.trim() || `HTTP ${response.status}` };
  }
  if (!response.ok) return { ok: false, body: answer };
  state.body = answer;
  const path = answer.share_path;
  if (path !== location.pathname + location.search) {
    if (push) history.pushState(null, "", path);
    else history.replaceState(null, "", path);
  }
  return { ok: true, body: answer };
}
