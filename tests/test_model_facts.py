"""Validating a link reads a table of each model's facts, never the model: the table agrees with the loaded
models, validation asks no model anything, and what only a model knows is checked when the view is computed."""

import json
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from pydantic import ValidationError

from app.engine.models import registry
from app.engine.models import translator as mt
from app.view import models
from app.view.compare import COMPARE_PRESETS
from app.view.links import comparison_from_query
from app.view.presets import PRESETS
from app.view.state import state_from_link_values

NAMES = [*models.MODEL_NAMES, *models.TRANSLATOR_NAMES]


def loaded_facts(name: str) -> models.ModelInfo:
    """The facts as the loaded model gives them (its config, its weights' shapes, its engine's limits)."""
    if name in models.MODEL_NAMES:
        model = models.get(name)
        return models.ModelInfo(
            name, model.label, model.languages, model.weights_note, model.n_layers, model.n_heads, model.d_model,
            model.d_head, model.max_pieces,
        )  # fmt: skip
    net = models.translator(name).network
    if isinstance(net, mt.TransformerMT):
        layers, heads, d_model = net.layers, net.heads, net.d
    else:  # the recurrent translators: one attention (or none), as wide as the decoder state s
        layers, heads, d_model = 1, 1, net.p["cell.weight_hh"].shape[1]
    vocabulary = json.loads((mt.DIRECTORY / mt.MODELS[name]["vocabulary"]).read_text(encoding="utf-8"))
    trained_on = "trained here on a generated corpus"  # and on Tatoeba's pairs when its vocabulary names them
    trained_on += " and Tatoeba's sentence pairs" if "tatoeba_sha256" in vocabulary else ""
    return models.ModelInfo(
        name, mt.MODELS[name]["label"], "English → Chinese", trained_on, layers, heads, d_model, d_model // heads,
        mt.MAX_SOURCE_WORDS,
    )  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_the_table_of_model_facts_agrees_with_the_loaded_model(name):
    assert models.info(name) == loaded_facts(name)


EXTRA_LINKS = [  # real models and translators at their limits, and past the last step
    "model=minilm&source=the+cat+sat&layer=5&head=11&step=50",
    "model=e5&source=我去银行取钱&layer=11&units=words&hide_special=true&step=99",
    "model=transformer-mt&source=Tom+chase+Jerry&layer=1&head=3&beam=3&step=20",
    "model=rnnsearch&source=I+put+money+in+the+bank&target=我+把+钱&step=9",
    "model=rnnencdec&source=we+sat+on+the+river+bank",
]
REFUSED = ["model=minilm&layer=6", "model=e5&head=12", "model=transformer-mt&layer=2", "model=rnnsearch&head=1"]


@pytest.fixture
def no_model(monkeypatch):
    """Every way to a model's files or its run refuses: a test passes only if nothing asks."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"validation asked a model: {args}")

    for name in ("get", "run", "translator", "translation", "count_pieces", "count_queries", "available"):
        monkeypatch.setattr(models, name, refuse)
    for name in ("get_model", "get_config"):  # of every registry, an app's or the default one
        monkeypatch.setattr(registry.Registry, name, refuse)
    monkeypatch.setattr(mt, "load", refuse)


def test_validating_every_example_link_asks_no_model(no_model):
    for query in [urlencode(preset["params"]) for preset in PRESETS] + EXTRA_LINKS:
        state_from_link_values(dict(parse_qsl(query)))  # not the cached reading: this validates
    for preset in COMPARE_PRESETS:
        comparison_from_query(preset["query"])
    for query in REFUSED:  # the table's limits refuse, still without a model
        with pytest.raises(ValidationError) as refused:
            state_from_link_values(dict(parse_qsl(query)))
        assert refused.value.errors()[0]["ctx"]["field"] == ("layer" if "layer" in query else "head")


def test_a_fresh_process_validates_links_without_loading_a_model():
    """The same in a process of its own: after validating, the registry has loaded nothing."""
    import subprocess
    import sys
    from pathlib import Path

    child = (
        "from urllib.parse import parse_qsl\n"
        "from app.engine.models import registry\n"
        "from app.view import models\n"
        "from app.view.state import state_from_link_values\n"
        f"for query in {EXTRA_LINKS!r}:\n"
        "    state_from_link_values(dict(parse_qsl(query)))\n"
        "print([registry.model_status(n) for n in models.MODEL_NAMES], models.translator.cache_info().currsize)\n"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[-2] == "['not loaded', 'not loaded'] 0"


def test_what_only_the_model_knows_is_checked_when_the_view_is_computed(client):
    """The word pieces' limit is the same 422 (the pane named in a comparison); a step past the last opens the
    last, and the canonical link says so."""
    long = " ".join(["antidisestablishment"] * 45)
    answer = client.get("/api/attention", params={"source": long, "model": "minilm"})
    assert answer.status_code == 422 and answer.json()["message"].startswith("source:")
    assert "128" in answer.json()["message"]
    posted = client.post("/api/attention", json={"source": long, "model": "minilm"})
    assert posted.status_code == 422 and posted.json()["detail"][0]["loc"][:2] == ["body", "source"]
    compared = client.get("/api/compare", params={"a.source": "bank", "b.source": long, "b.model": "minilm"})
    assert compared.status_code == 422 and compared.json()["message"].startswith("b.source:")
    for query, last in (
        ("model=minilm&source=the+cat+sat&step=50", 4),
        ("model=rnnsearch&source=tom+chase+jerry&step=9", 2),
    ):
        body = client.get("/api/attention?" + query).json()
        assert body["params"]["step"] == last == len(body["tokens"]["queries"]) - 1
        assert dict(parse_qsl(urlsplit(body["share_path"]).query))["step"] == str(last)
