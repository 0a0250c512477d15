"""Queries and keys as points in one plane: the engine (app/engine/attention/geometry.py) and the JSON twin's
`geometry`, checked against the head's own vectors and independent computations; the `stretch` of the vectors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.attention.geometry import axes_share, exact_plane, feature_plane, input_plane, pca_plane, unit_rows
from app.view.state import State
from tests.support.views import whole

EPS = np.finfo(float).eps
EXERCISE = {"q": "1,0;0,1", "k": "1,0;0,1;1,1", "v": "1,2;3,4;5,6", "score": "dot"}
VIEWS = {
    "named self, step 0": {"source": "walk by river bank"},
    "named self, bank": {"source": "walk by river bank", "step": 3},
    "named, before W_Q and W_K": {"source": "walk by river bank", "step": 3, "plane": "embedding"},
    "pronoun": {"source": "the cat drank the milk because it was hungry", "step": 6},
    "cross": {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": 2},
    "random projection": {"source": "walk by river bank", "projection": "random", "heads": 2, "head": 1},
    "identity, stretched": {"source": "walk by river bank", "projection": "identity", "stretch": 2.5},
    "hashed, plain dot": {"source": "walk by river bank", "embedding": "hash", "dim": 64, "projection": "random"},
    "exercise 3 wide": {"q": "1,2,3;0,1,0", "k": "1,0,0;0,1,0;2,2,1;0,0,5", "v": "1;2;3;4"},
}


def get(client, **params):
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return whole(client, response.json())


def projection_bound(vectors, center, basis):
    """A bound on the rounding of (x - c) · bᵀ for each point and axis: d products and sums, each rounded
    (gamma_d ≈ d u), plus the subtraction, on the sizes of the terms; the JSON carries floats exactly."""
    d = vectors.shape[1]
    return (d + 2) * EPS * (np.abs(vectors) + np.abs(center)) @ np.abs(basis).T + 1e-300


@pytest.mark.parametrize("name", VIEWS)
def test_the_json_coordinates_reproduce_from_its_basis_and_the_heads_vectors(client, name):
    view = get(client, **VIEWS[name])
    geometry = view["geometry"]
    basis, center = np.array(geometry["basis"]), np.array(geometry["center"])
    if geometry["plane"] == "embedding":
        drawn = {side: np.array(view["embeddings"][side]) for side in ("queries", "keys")}
    else:
        drawn = {"queries": np.array(view["head"]["q"]), "keys": np.array(view["head"]["k"])}
    assert basis.shape == (2, drawn["queries"].shape[1]) and center.shape == (basis.shape[1],)
    np.testing.assert_allclose(basis @ basis.T, np.eye(2), atol=8 * basis.shape[1] * EPS)  # orthonormal axes
    for side, vectors in drawn.items():
        points = np.array(geometry[side])
        assert points.shape == (len(vectors), 2)
        expected = (vectors - center) @ basis.T  # (n, 2) the plane's own definition
        assert np.all(np.abs(points - expected) <= projection_bound(vectors, center, basis)), side
    assert 0.0 <= geometry["retained"] <= 1.0 + 1e-12
    assert len(geometry["axes"]) == 2 and all(geometry["axes"])


@pytest.mark.parametrize("name", VIEWS)
def test_the_lines_are_the_heads_own_numbers_for_the_current_step(client, name):
    view = get(client, **VIEWS[name])
    lines, head = view["geometry"]["lines"], view["head"]
    step = view["params"]["step"]
    q, k = np.array(head["q"]), np.array(head["k"])
    assert lines["step"] == step
    assert lines["scores"] == head["scores"][step] and lines["weights"] == head["weights"][step]
    assert lines["mask"] == head["mask"][step]
    # q·k by a loop, not a matrix product: each term rounded, summed left to right (gamma_d of |q||k|)
    by_hand = [math.fsum(a * b for a, b in zip(q[step], key, strict=True)) for key in k]
    bound = (q.shape[1] + 1) * EPS * (np.abs(k) @ np.abs(q[step]))
    assert np.all(np.abs(np.array(lines["dots"]) - by_hand) <= bound + 1e-300)
    if view["params"]["score"] == "scaled_dot":
        # the scores come from a matrix product (another order of the same sums): twice the bound, then the division
        scaled = np.array(lines["dots"]) / math.sqrt(q.shape[1])
        assert np.all(np.abs(scaled - lines["scores"]) <= (2 * bound + 1e-300) / math.sqrt(q.shape[1]) * (1 + 4 * EPS))


def test_exercise_with_two_wide_vectors_draws_the_typed_vectors_exactly(client):
    view = get(client, **EXERCISE, query_labels="q1,q2", key_labels="a,b,c")
    geometry = view["geometry"]
    assert geometry["method"] == "exact" and geometry["retained"] == 1.0
    assert geometry["queries"] == [[1.0, 0.0], [0.0, 1.0]]  # the link's q, number for number
    assert geometry["keys"] == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    odd = {"q": "0.1,-3.7;1e-7,123456.789", "k": "0.3,0.7;-2.5,1e5", "v": "1;2"}
    geometry = get(client, **odd)["geometry"]
    assert geometry["queries"] == [[0.1, -3.7], [1e-7, 123456.789]] and geometry["keys"] == [[0.3, 0.7], [-2.5, 1e5]]


def test_exercise_with_one_wide_vectors_lies_on_the_horizontal_axis(client):
    geometry = get(client, q="2;-1", k="3;0.5;-4", v="1;2;3")["geometry"]
    assert geometry["method"] == "exact"
    assert geometry["queries"] == [[2.0, 0.0], [-1.0, 0.0]] and geometry["keys"] == [
        [3.0, 0.0],
        [0.5, 0.0],
        [-4.0, 0.0],
    ]


def test_pca_keeps_the_share_of_variance_the_covariances_eigenvalues_give():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((7, 6)) * [5, 3, 1, 1, 0.5, 0.1], rng.standard_normal((9, 6))
    plane = pca_plane(q, k)
    points = np.vstack([q, k])
    eigenvalues = np.linalg.eigvalsh(np.cov(points.T))[::-1]  # an independent route: eigenvalues, largest first
    assert plane.retained == pytest.approx(eigenvalues[:2].sum() / eigenvalues.sum(), rel=1e-9)
    for row in plane.basis:  # the sign rule: the largest entry of each axis is positive
        assert row[np.argmax(np.abs(row))] > 0
    # the first axis is the direction of largest spread: no other unit direction (sampled) spreads more
    projected = (points - plane.center) @ plane.basis[0]
    for direction in rng.standard_normal((200, 6)):
        direction /= np.linalg.norm(direction)
        assert np.var((points - plane.center) @ direction) <= np.var(projected) * (1 + 1e-9)


def test_a_feature_plane_takes_the_two_dimensions_that_choose_between_keys_most():
    # hand-worked: dimension a differs between the keys and the query asks it; b every key has alike
    # (it shifts the whole row and chooses nothing); c differs a little
    names = ("a", "b", "c")
    q = np.array([[2.0, 5.0, 1.0]])  # (1, 3)
    k = np.array([[1.0, 3.0, 0.5], [-1.0, 3.0, 0.0]])  # (2, 3) spread from the mean key: a 1, b 0, c 0.25
    plane = feature_plane(q, k, np.ones((1, 2), dtype=bool), names)
    # carried: a 2*(1+1) = 4, b 5*0 = 0, c 1*(0.25+0.25) = 0.5
    assert plane.axis_names == ("a", "c")
    assert plane.score_share == pytest.approx(4.5 / 4.5)
    assert plane.retained == pytest.approx((4 + 1 + 1 + 1 + 0.25) / (4 + 25 + 1 + 1 + 9 + 0.25 + 1 + 9))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 7).flatmap(
        lambda d: st.tuples(
            st.lists(st.lists(st.floats(-1e3, 1e3), min_size=d, max_size=d), min_size=1, max_size=9),
            st.lists(st.integers(0, d - 1), min_size=2, max_size=2, unique=True),
        )
    )
)
def test_the_share_of_two_axes_is_the_share_the_projection_on_them_keeps(rows_and_columns):
    """Read from the two columns, the same number, bit for bit, as projecting on the plane's unit rows and summing
    the squares of the (n, 2) coordinates (the projection the plane draws with)."""
    rows, columns = rows_and_columns
    vectors = np.array(rows)  # (n, d)
    projected = vectors @ unit_rows(vectors.shape[1], tuple(columns)).T  # (n, 2)
    total = float(np.sum(vectors**2))
    expected = float(np.sum(projected**2)) / total if total else 1.0
    assert axes_share(vectors, tuple(columns)) == expected


def test_the_sense_head_draws_bank_and_river_on_its_named_questions(client):
    view = get(client, source="walk by river bank", step=3)
    geometry = view["geometry"]
    assert view["named_head"]["name"] == "sense" and geometry["method"] == "features"
    assert set(geometry["axes"]) <= set(view["names"]["vectors"]) == {"water", "money", "nature"}
    assert geometry["score_share"] > 0.5


def test_before_w_q_and_w_k_each_word_is_one_point(client):
    view = get(client, source="walk by river bank", step=3, plane="embedding")
    geometry = view["geometry"]
    assert geometry["plane"] == "embedding" and geometry["method"] == "inputs"
    assert geometry["queries"] == geometry["keys"]  # self-attention: the same word vectors, not yet asked anything
    assert set(geometry["axes"]) <= set(view["features"])
    after = get(client, source="walk by river bank", step=3)["geometry"]
    assert after["queries"] != after["keys"]  # W_Q and W_K move a word's query and key apart


def test_input_plane_falls_back_to_the_features_the_words_have():
    x = np.array([[0.0, 2.0, 0.0, 1.0], [0.0, 3.0, 0.0, 0.0]])  # (2, 4)
    W = np.zeros((4, 2))
    W[3, 0] = 1.0  # the head reads feature 3 only
    plane = input_plane(x, x, W, W, (0, 1), ("w", "x", "y", "z"))
    assert plane.axis_names == ("z", "x")  # read first, then the feature the words have most


def test_exact_plane_names_its_axes():
    assert exact_plane(2).axis_names == ("d0", "d1") and exact_plane(1).basis.tolist() == [[1.0], [0.0]]


def test_stretch_is_in_the_link_and_plane_needs_named_heads(client):
    view = get(client, source="walk by river bank", stretch="2")
    assert "stretch=2" in view["share_path"] and "stretch=2" in view["query"]
    assert view["geometry"]["stretch"] == 2.0
    refused = client.get("/api/attention", params={"source": "walk", "projection": "random", "plane": "embedding"})
    assert refused.status_code == 422 and "plane" in refused.text
    for bad in ("0", "11", "nan"):
        response = client.get("/api/attention", params={"source": "walk", "stretch": bad})
        assert response.status_code == 422 and "stretch" in response.text, bad
    assert client.get("/api/attention", params={"source": "walk", "slide": "8"}).status_code == 200
    assert client.get("/api/attention", params={"source": "walk", "slide": "9"}).status_code == 422


def test_stretch_multiplies_the_vectors_and_the_scores_by_its_square(client):
    plain = get(client, **EXERCISE)
    stretched = get(client, **EXERCISE, stretch="3")
    assert np.array(stretched["head"]["q"]).tolist() == (3 * np.array(plain["head"]["q"])).tolist()
    assert np.array(stretched["geometry"]["keys"]).tolist() == (3 * np.array(plain["geometry"]["keys"])).tolist()
    np.testing.assert_allclose(stretched["head"]["scores"], 9 * np.array(plain["head"]["scores"]), rtol=4 * EPS)
    assert max(stretched["head"]["weights"][0]) > max(plain["head"]["weights"][0])  # sharper
    cosine = get(client, **{**EXERCISE, "score": "cosine"}, stretch="3")  # the cosine does not see lengths
    np.testing.assert_allclose(
        cosine["head"]["weights"], get(client, **{**EXERCISE, "score": "cosine"})["head"]["weights"], rtol=8 * EPS
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=2, max_size=5),
    st.sampled_from([0.5, 2.0, 4.0]),
)
def test_a_longer_query_and_key_saturate_the_softmax(vectors, stretch):
    """With the same directions, stretching by s > 1 never flattens a row: its largest weight does not fall."""
    from app.view.compute import compute_view

    rows = tuple(tuple(float(x) for x in row) for row in vectors)
    base = {"q": rows[:1], "k": rows, "v": tuple((1.0,) for _ in rows), "score": "dot"}
    plain = compute_view(State(**base))["head"]["weights"][0]
    moved = compute_view(State(**base, stretch=stretch))["head"]["weights"][0]
    if stretch > 1:
        assert moved.max() >= plain.max() - 4 * EPS
    else:
        assert moved.max() <= plain.max() + 4 * EPS


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fresh_start_opens_on_a_row_the_stretch_and_the_temperature_change(lang):
    """The first thing a teacher tries on the page as it opens, the panel's vector lengths (or temperature), moves the
    current row's weights by at least 0.1 both ways: the row is not saturated already."""
    from app.view.compute import compute_view
    from app.view.state import DEFAULT_SOURCES, DEFAULT_STEPS

    opening = {"source": DEFAULT_SOURCES[lang], "step": DEFAULT_STEPS[lang]}

    def row(**settings):
        return np.asarray(compute_view(State(**opening, **settings))["head"]["weights"][opening["step"]])

    shown = row()
    for moved in (row(stretch=2), row(stretch=0.5), row(temperature=2)):
        assert np.abs(moved - shown).max() >= 0.1, (shown.round(3), moved.round(3))
