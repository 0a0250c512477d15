// Numbers on screen: how values are written for people (links are written by the server, never here).

/** A number for people: about `digits` significant digits, no trailing zeros. */
export function fmt(x, digits = 3) {
  if (x === null || x === undefined || Number.isNaN(x)) return "—";
  if (x === 0) return "0";
  const magnitude = Math.abs(x);
  if (magnitude >= 1e5 || magnitude < 1e-3) return x.toExponential(digits - 1);
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(magnitude)));
  return String(Number(x.toFixed(Math.min(decimals, 6))));
}

/**
 * A vector as [a, b, c]; with feature names, only its non-zero entries by name, {animal 0.75, big 0.75},
 * so a 16-feature lexicon vector stays readable. Long vectors show their ends (every number is in the tables).
 */
export function fmtVector(row, digits = 3, names = null) {
  if (names && names.length === row.length) {
    const parts = row.map((x, i) => (Math.abs(x) > 1e-9 ? `${names[i]} ${fmt(x, digits)}` : null)).filter(Boolean);
    return "{" + (parts.length ? parts.join(", ") : "0") + "}";
  }
  if (row.length > 8) {
    const shown = [...row.slice(0, 4), null, ...row.slice(-2)].map((x) => (x === null ? "…" : fmt(x, digits)));
    return "[" + shown.join(", ") + `] (${row.length})`;
  }
  return "[" + row.map((x) => fmt(x, digits)).join(", ") + "]";
}

/** Rough width of a text in em: a CJK character is 1, anything else `latin` (for laying out labels). */
export function textUnits(text, latin = 0.6) {
  return [...String(text)].reduce((width, ch) => width + (ch.charCodeAt(0) > 0x2e80 ? 1 : latin), 0);
}
