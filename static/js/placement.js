// Labels beside their points that never overlap (the geometry panel's words). Pure geometry in pixels, no DOM.
// Each label, in order of importance, takes the cheapest free place around its point: near it first, then further
// out with a leader line back to the point. A place is free when it stays inside `bounds` and covers no label
// placed before, no point and no leader line; crossing a drawn line is allowed but costs (a thick one more), so a
// label moves off a line when a place nearby is clear. A label with no free place is left out: the panel's table
// names every point.

const RINGS = 5; // distances tried: beside the point, then four steps further out (with a leader line)
const GAP = 2; // px kept between a label and anything else

// The eight directions, in the order tried: below first for keys, above first for queries (where Plotly put them).
const BELOW_FIRST = [[0, 1], [1, 0], [-1, 0], [0, -1], [1, 1], [-1, 1], [1, -1], [-1, -1]];
const ABOVE_FIRST = [[0, -1], [1, 0], [-1, 0], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]];

/** Do two boxes {x, y, w, h} overlap, or come closer than `gap` px? */
export function overlaps(a, b, gap = 0) {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

/** Does the segment {x1, y1, x2, y2} pass through the box grown by `pad` px on every side (Liang–Barsky clipping)? */
export function crosses(segment, box, pad = 0) {
  const { x1, y1, x2, y2 } = segment;
  const dx = x2 - x1;
  const dy = y2 - y1;
  let low = 0;
  let high = 1;
  const sides = [[-dx, x1 - (box.x - pad)], [dx, box.x + box.w + pad - x1], [-dy, y1 - (box.y - pad)], [dy, box.y + box.h + pad - y1]];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false; // parallel to this side and outside it
    } else {
      const r = q / p;
      if (p < 0) low = Math.max(low, r);
      else high = Math.min(high, r);
      if (low > high) return false;
    }
  }
  return true;
}

/** The box of a label w × h put in direction (dx, dy), `d` px from the point (x, y) along each axis it moves on. */
function boxAt({ x, y, w, h }, [dx, dy], d) {
  const left = dx > 0 ? x + d : dx < 0 ? x - d - w : x - w / 2;
  const top = dy > 0 ? y + d : dy < 0 ? y - d - h : y - h / 2;
  return { x: left, y: top, w, h };
}

/** A line from the edge of the point's marker to the nearest point of the box. */
function leaderTo(label, box) {
  const nx = Math.min(Math.max(label.x, box.x), box.x + box.w);
  const ny = Math.min(Math.max(label.y, box.y), box.y + box.h);
  const length = Math.hypot(nx - label.x, ny - label.y) || 1;
  return { x1: label.x + ((nx - label.x) * label.r) / length, y1: label.y + ((ny - label.y) * label.r) / length, x2: nx, y2: ny };
}

const inside = (box, bounds) =>
  box.x >= bounds.x && box.y >= bounds.y && box.x + box.w <= bounds.x + bounds.w && box.y + box.h <= bounds.y + bounds.h;

/**
 * Place `labels` ([{id, x, y, w, h, r, above}] in order of importance: the point's centre, the label's size, the
 * point's marker radius, whether to try above the point first) so that none overlaps another, a point
 * (`points`: boxes {x, y, w, h}) or a leader line. `lines` ([{x1, y1, x2, y2, width}]) may be crossed at a cost.
 * Returns [{id, box, leader}] for the labels placed (leader: a segment, or null when the label sits beside its point).
 */
export function placeLabels(labels, { points, lines, bounds }) {
  const placed = [];
  const leaders = [];
  for (const label of labels) {
    const order = label.above ? ABOVE_FIRST : BELOW_FIRST;
    const step = label.h * 1.1; // each ring this much further out
    let best = null;
    for (let ring = 0; ring < RINGS; ring += 1) {
      if (best && best.cost <= ring) break; // nothing further out can cost less
      order.forEach((direction, n) => {
        const box = boxAt(label, direction, label.r + GAP + ring * step);
        if (!inside(box, bounds)) return;
        if (placed.some((other) => overlaps(box, other.box, GAP))) return;
        if (points.some((point) => overlaps(box, point, 1))) return;
        if (leaders.some((segment) => crosses(segment, box, GAP))) return;
        const leader = ring === 0 ? null : leaderTo(label, box);
        if (leader && placed.some((other) => crosses(leader, other.box, 1))) return;
        const crossing = lines.reduce((sum, line) => sum + (crosses(line, box, line.width / 2) ? (line.width >= 3 ? 1.5 : 0.25) : 0), 0);
        const cost = ring + crossing + n * 0.01; // nearer first, off the lines when it can, then the direction's order
        if (!best || cost < best.cost) best = { cost, box, leader };
      });
    }
    if (!best) continue; // no free place: the table names this point
    placed.push({ id: label.id, box: best.box, leader: best.leader });
    if (best.leader) leaders.push(best.leader);
  }
  return placed;
}
