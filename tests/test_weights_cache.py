"""The weights cache file (app/engine/models/weights_cache.py): the same numbers, shared, never stale or damaged."""

from __future__ import annotations

import logging
import os
import shutil

import numpy as np
import pytest

from app.engine.models import e5, minilm, registry, weights_cache
from tests.support.damage import flip_bit

SENTENCES = ("The cat sat on the mat.", "我去银行取钱，然后去河边钓鱼。")


def outputs(model) -> list[np.ndarray]:
    found = []
    for text in SENTENCES:
        run = model.run(text)
        found += [np.asarray(run.ids), run.q, run.k, run.v, run.scores, run.weights, run.context, run.hidden]
        found.append(run.embedding)
    return found


def same_bytes(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True)
    )


def mapped(array: np.ndarray) -> bool:
    """The array is a view of a mapped file (not a copy in this process's memory)."""
    while array is not None:
        if isinstance(array, np.memmap):
            return True
        array = array.base if isinstance(array.base, np.ndarray) else None
    return False


@pytest.mark.parametrize("module", [minilm, e5], ids=["minilm", "e5"])
def test_a_model_from_its_cache_file_computes_the_same_bytes(module, tmp_path, monkeypatch):
    from_package = []  # the model the first load makes from the package, before it writes the file

    def load_from_package(*args):
        made = real_load_from_package(*args)
        from_package.append(made[0] if isinstance(made, tuple) else made)  # e5 adds its vocabulary and normaliser
        return made

    real_load_from_package = module.load_from_package
    monkeypatch.setattr(module, "load_from_package", load_from_package)
    first = module.load_model(cache_dir=tmp_path)  # verifies the package, writes the file, maps it
    (package_model,) = from_package
    assert not mapped(package_model.params.layers[0].w_qkv)
    plain = outputs(package_model)
    (written,) = tmp_path.iterdir()
    assert written.name == weights_cache.file_name(first.name, module.EXPECTED_SHA256)
    assert module.EXPECTED_SHA256[:32] in written.name
    second = module.load_model(cache_dir=tmp_path)  # maps the file written by the first
    assert len(from_package) == 1, "the second load reads the file, not the package"
    for model in (first, second):
        layer = model.params.layers[0]
        assert mapped(layer.w_qkv) and not layer.w_qkv.flags.writeable
        assert same_bytes(outputs(model), plain), "a model from the cache must answer bit for bit the same"


@pytest.fixture(scope="module")
def minilm_file():
    """MiniLM's cache file in MODEL_CACHE_DIR, the one the app's model (and every other test's) is mapped from
    (its first load in the run writes it), and what that model computes. A test that damages it damages a copy."""
    model = registry.get_model("minilm")
    assert mapped(model.params.layers[0].w_qkv)
    return registry.default().cache_dir / weights_cache.file_name("minilm", minilm.EXPECTED_SHA256), outputs(model)


def test_a_damaged_cache_file_is_never_used(minilm_file, tmp_path, caplog):
    written, expected = minilm_file
    path = tmp_path / written.name
    shutil.copyfile(written, path)
    flip_bit(path, -1000)  # one bit of one weight
    with caplog.at_level(logging.INFO, logger=weights_cache.__name__):
        again = minilm.load_model(cache_dir=tmp_path)
    assert "sha256" in caplog.text
    assert same_bytes(outputs(again), expected)
    weights_cache.read(path)  # rewritten whole from the package
    os.truncate(path, path.stat().st_size - 64)  # cut short
    with pytest.raises(weights_cache.CacheUnusable):
        weights_cache.read(path)
    assert same_bytes(outputs(minilm.load_model(cache_dir=tmp_path)), expected)


def test_a_cache_made_from_another_file_is_never_read(tmp_path):
    """The file name carries the source's sha256: a cache of other weights sits beside, unused."""
    other = tmp_path / weights_cache.file_name("minilm", "0" * 64)
    weights_cache.write(other, {"word_emb": np.zeros((2, 2), np.float32)}, {"config": {}})
    model = minilm.load_model(cache_dir=tmp_path)
    assert model.params.word_emb.shape == (30522, 384)
    assert len(list(tmp_path.iterdir())) == 2


def test_without_a_writable_folder_the_model_still_loads(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    model = minilm.load_model(cache_dir=blocked / "models")
    assert not mapped(model.params.layers[0].w_qkv)
    assert model.run("hi").tokens == ["[CLS]", "hi", "[SEP]"]


def test_the_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """A writer that fails half way leaves no file and no temporary file behind."""
    path = tmp_path / "x.weights"

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(weights_cache.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        weights_cache.write(path, {"a": np.arange(1000, dtype=np.float32)}, {})
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    weights_cache.write(path, {"a": np.arange(1000, dtype=np.float32), "b": np.ones(3, np.uint8)}, {"n": 1})
    arrays, facts = weights_cache.read(path)
    assert facts == {"n": 1} and np.array_equal(arrays["a"], np.arange(1000)) and arrays["b"].tolist() == [1, 1, 1]
    assert arrays["a"].ctypes.data % weights_cache.ALIGN == 0
