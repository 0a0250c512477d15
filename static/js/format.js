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

/** A weight (0..1) as people read it: two decimals, and "< 0.001" for the tiny ones rather than 1.8e-5. */
export function fmtWeight(x) {
  if (x > 0 && x < 0.001) return "< 0.001";
  if (x > 0 && x < 0.01) return fmt(x, 1);
  return fmt(x, 2);
}

/**
 * A vector as [a, b, c]; with feature names, only its non-zero entries by name, {animal 0.75, big 0.75},
 * so a 16-feature lexicon vector stays readable. With `limit`, at most that many entries are written
 * (the largest named ones, or the ends of an unnamed one) and "…" says some are left out.
 */
export function fmtVector(row, digits = 3, names = null, limit = Infinity) {
  if (names && names.length === row.length) {
    const kept = row.map((x, i) => [x, i]).filter(([x]) => Math.abs(x) > 1e-9);
    const shown = kept.length > limit ? [...kept].sort((a, b) => Math.abs(b[0]) - Math.abs(a[0]) || a[1] - b[1]).slice(0, limit) : kept;
    const parts = shown.sort((a, b) => a[1] - b[1]).map(([x, i]) => `${names[i]} ${fmt(x, digits)}`);
    if (shown.length < kept.length) parts.push("…");
    return "{" + (parts.length ? parts.join(", ") : "0") + "}";
  }
  if (row.length > limit) {
    const head = Math.max(1, limit - 1);
    const shown = [...row.slice(0, head).map((x) => fmt(x, digits)), "…", fmt(row[row.length - 1], digits)];
    return "[" + shown.join(", ") + `] (${row.length})`;
  }
  return "[" + row.map((x) => fmt(x, digits)).join(", ") + "]";
}

/** Rough width of a text in em: a CJK character is 1, anything else `latin` (for laying out labels). */
export function textUnits(text, latin = 0.6) {
  return [...String(text)].reduce((width, ch) => width + (ch.charCodeAt(0) > 0x2e80 ? 1 : latin), 0);
}
