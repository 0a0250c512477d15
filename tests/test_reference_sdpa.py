"""The engine against torch.nn.functional.scaled_dot_product_attention (fixtures; no torch needed).

tests/fixtures/sdpa/cases.json is written by tools/reference/sdpa_reference.py in a separate
torch venv; see tools/reference/README.md.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from app.engine.attention import attention_mask, single_head_attention

FIXTURE = Path(__file__).parent / "fixtures" / "sdpa" / "cases.json"
META = json.loads(FIXTURE.read_text(encoding="utf-8"))
CASES = META["cases"]
TOLERANCE = 1e-6


def test_fixture_is_small_and_varied():
    assert FIXTURE.stat().st_size < 200_000
    assert META["torch"].startswith("2.13.0")
    assert len(CASES) >= 6
    assert any(c["mask"] is None for c in CASES) and any(c["causal"] for c in CASES)
    assert any(c["window"] is not None for c in CASES)
    assert len({c["temperature"] for c in CASES}) >= 4
    assert len({(len(c["q"]), len(c["k"]), len(c["q"][0]), len(c["v"][0])) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_engine_matches_torch_sdpa(case):
    q, k, v = (np.array(case[name], dtype=float) for name in ("q", "k", "v"))
    n_q, n_k, d_k = len(q), len(k), q.shape[1]
    assert math.isclose(case["scale"], 1 / (math.sqrt(d_k) * case["temperature"]), rel_tol=1e-15)
    mask = None if case["mask"] is None else np.array(case["mask"], dtype=bool)
    # the reference builds its masks on its own; they agree with the engine's
    engine_mask = attention_mask(n_q, n_k, window=case["window"], causal=case["causal"])
    np.testing.assert_array_equal(engine_mask, np.ones((n_q, n_k), bool) if mask is None else mask)

    head = single_head_attention(q, k, v, score="scaled_dot", temperature=case["temperature"], mask=mask)
    np.testing.assert_allclose(head.weights, case["expected_weights"], rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(head.output, case["expected_output"], rtol=0, atol=TOLERANCE)
    if mask is not None:
        assert np.all(head.weights[~mask] == 0)
