"""Queries and keys as points in one plane: the geometry behind stage 1.

A head's score is a dot product: a key whose vector points the way the query points, and is long,
scores high. Drawing a head's queries and keys as points in ONE plane shows that: the current query,
a line to every key, the line's width its weight. The vectors have d_k numbers, so the plane is chosen:

- ``exact_plane``     d_k <= 2 (an exercise with 2-wide vectors): the vectors themselves, no projection.
- ``feature_plane``   a named head: the two of its question dimensions (columns of W_Q and W_K, each with
                      a name such as "water" or "role") that carry the most of the head's scores,
                      sum over visible pairs of |q_d| |k_d|. The axes are those named dimensions.
- ``pca_plane``       anything else (random projections, real models): the two principal directions of the
                      head's queries and keys together, centred on their mean.
- ``input_plane``     a named head's words BEFORE W_Q and W_K: the two input features (of the word vectors)
                      that the chosen question dimensions read the most.

Every plane says how much it keeps (``retained``): the share of the vectors' squared distances from
its centre that lie in the plane (for the PCA: the share of variance). ``lines`` gives, for one query,
each key's q·k, its score (after scaling) and its weight: the numbers the drawn lines stand for.

Shape names: n_q queries, n_k keys, d the width of the vectors drawn (d_k, or d_model before W_Q/W_K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Plane:
    """A plane in the space of the vectors: coordinates = (vector - center) @ basis.T."""

    method: str  # "exact", "features", "pca" or "inputs"
    basis: np.ndarray  # (2, d) the plane's two unit directions (rows)
    center: np.ndarray  # (d,) the point drawn at (0, 0)
    axis_names: tuple[str, str]  # a name per axis: a feature, a question dimension, or "PC1", "PC2"
    retained: float  # share of the squared distances from `center` that the plane keeps (1: nothing lost)
    score_share: float | None = None  # features: share of the head's sum of |q_d k_d| the two axes carry

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """The 2D points of some vectors (n, d) -> (n, 2); an exact plane copies them (padded to 2 columns)."""
        vectors = np.asarray(vectors, dtype=float)
        if self.method == "exact":
            points = np.zeros((len(vectors), 2))  # (n, 2)
            points[:, : vectors.shape[1]] = vectors
            return points
        return (vectors - self.center) @ self.basis.T  # (n, 2)


def axes_share(vectors: np.ndarray, columns: tuple[int, int]) -> float:
    """Share of sum |x|^2 that lies in the plane of two coordinate axes through 0 (unit_rows(d, columns)): the
    two columns' squares over all squares (a projection on a unit axis e_c is the column x_c itself)."""
    squares = vectors**2  # (n, d)
    total = float(np.sum(squares))
    if total == 0.0:
        return 1.0  # every point at 0: the plane loses nothing
    return float(np.sum(squares.take(columns, axis=1))) / total  # (n, 2) in rows, as the projection sums them


def unit_rows(d: int, columns: tuple[int, int]) -> np.ndarray:
    """(2, d): the unit vectors along two coordinate axes."""
    basis = np.zeros((2, d))
    basis[0, columns[0]] = 1.0
    basis[1, columns[1]] = 1.0
    return basis


def two_largest(values: np.ndarray) -> tuple[int, int]:
    """Indices of the two largest values, the first on ties (a stable order, the same on every machine)."""
    order = np.argsort(-values, kind="stable")
    return int(order[0]), int(order[1])


def exact_plane(d: int, names: tuple[str, ...] | None = None) -> Plane:
    """Vectors of width 1 or 2 drawn as they are (width 1: on the horizontal axis)."""
    basis = np.zeros((2, d))
    for axis in range(d):
        basis[axis, axis] = 1.0
    names = tuple(names or ()) + ("d0", "d1")[len(names or ()) :]
    return Plane("exact", basis, np.zeros(d), (names[0], names[1]), 1.0)


def feature_plane(q: np.ndarray, k: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> Plane:
    """The two named question dimensions that carry the most of the head's choice between keys.

    The score of query i and key j is sum_d q_id k_jd. The softmax only sees how a query's scores differ
    from key to key, so dimension d carries sum over visible (i, j) of |q_id| |k_jd - mean_j k_jd|: a
    dimension every key has alike (a slow position wave) shifts whole rows and chooses nothing.
    ``score_share`` is the two axes' share of that sum.
    """
    # q (n_q, d_k), k (n_k, d_k), mask (n_q, n_k)
    spread = np.abs(k - k.mean(axis=0))  # (n_k, d_k) how each key differs from the average key
    carried = np.einsum("ij,id,jd->d", mask.astype(float), np.abs(q), spread)  # (d_k,)
    columns = two_largest(carried)
    basis = unit_rows(q.shape[1], columns)  # (2, d_k)
    center = np.zeros(q.shape[1])
    total = float(carried.sum())
    share = float(carried[list(columns)].sum()) / total if total > 0 else 1.0
    retained = axes_share(np.vstack([q, k]), columns)
    return Plane("features", basis, center, (names[columns[0]], names[columns[1]]), retained, share)


def pca_plane(q: np.ndarray, k: np.ndarray) -> Plane:
    """The plane of the two principal components of the queries and keys together (PCA, centred).

    Each component's sign is fixed so that its largest entry (the first on ties) is positive: the same
    picture on every machine, whatever sign the SVD returns.
    """
    points = np.vstack([q, k]).astype(float)  # (n_q + n_k, d)
    center = points.mean(axis=0)  # (d,)
    _, singular, right = np.linalg.svd(points - center, full_matrices=False)  # right (r, d)
    basis = np.zeros((2, points.shape[1]))  # (2, d) a missing component (fewer than 2 points) stays 0
    basis[: min(2, len(right))] = right[:2]
    for row in basis:
        biggest = int(np.argmax(np.abs(row)))
        if row[biggest] < 0:
            row *= -1.0
    variance = singular**2  # (r,)
    total = float(variance.sum())
    retained = float(variance[:2].sum()) / total if total > 0 else 1.0
    return Plane("pca", basis, center, ("PC1", "PC2"), retained)


def input_plane(
    x_q: np.ndarray,
    x_k: np.ndarray,
    W_Q: np.ndarray,
    W_K: np.ndarray,
    columns: tuple[int, int],
    inputs: tuple[str, ...],
) -> Plane:
    """The words before W_Q and W_K, on the two input features the chosen question dimensions read most.

    Feature f counts sum over the two dimensions d of |W_Q[f, d]| sum_i |x_q[i, f]| + |W_K[f, d]| sum_j |x_k[j, f]|:
    how much of the words' own feature f the head turns into those two dimensions. Features no word has
    count 0; if fewer than two count, the features the words have most fill the plane.
    """
    # x_q (n_q, d_model), x_k (n_k, d_model), W_Q and W_K (d_model, d_k)
    dims = list(columns)
    asked = np.abs(W_Q[:, dims]).sum(axis=1) * np.abs(x_q).sum(axis=0)  # (d_model,)
    answered = np.abs(W_K[:, dims]).sum(axis=1) * np.abs(x_k).sum(axis=0)  # (d_model,)
    read = asked + answered  # (d_model,)
    present = np.abs(x_q).sum(axis=0) + np.abs(x_k).sum(axis=0)  # (d_model,) how much the words have each feature
    # read first; among features not read, the ones the words have most (a small tie-break weight)
    chosen = two_largest(np.where(read > 0, read + present.max() + 1.0, present))
    basis = unit_rows(x_q.shape[1], chosen)  # (2, d_model)
    center = np.zeros(x_q.shape[1])
    retained = axes_share(np.vstack([x_q, x_k]), chosen)
    return Plane("inputs", basis, center, (inputs[chosen[0]], inputs[chosen[1]]), retained)


def lines(q: np.ndarray, k: np.ndarray, scores: np.ndarray, weights: np.ndarray, mask: np.ndarray) -> dict:
    """One query's line to every key: q·k in full (all d_k numbers), the score of stage 1, the weight of stage 2."""
    # q (d_k,), k (n_k, d_k), scores (n_k,), weights (n_k,), mask (n_k,)
    return {"dots": k @ q, "scores": scores, "weights": weights, "mask": mask}  # each (n_k,)
