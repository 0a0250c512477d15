"""Each app's models come from its own settings' weights folder (MODEL_CACHE_DIR), in one process."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.engine.models import minilm, weights_cache
from app.main import create_app
from app.settings import Settings

MINILM_VIEW = "/api/attention?model=minilm&source=the+cat+sat+on+the+mat&head=0"


@pytest.fixture
def two_apps(tmp_path):
    """Two apps, each with a weights folder of its own; their models are forgotten afterwards."""
    folders = [tmp_path / "a", tmp_path / "b"]
    apps = [create_app(Settings(model_cache_dir=str(folder), access_log=False)) for folder in folders]
    yield list(zip(apps, folders, strict=True))
    for each, _ in zip(apps, folders, strict=True):
        each.models.reset()  # the mapped files in tmp_path let go


def test_two_apps_each_load_minilm_from_their_own_folder(two_apps):
    name = weights_cache.file_name("minilm", minilm.EXPECTED_SHA256)
    for each, folder in two_apps:
        assert not (folder / name).exists()
        response = TestClient(each).get(MINILM_VIEW)  # the same view in both: no run is shared between them
        assert response.status_code == 200, response.text[:300]
        assert (folder / name).is_file(), "this app's first MiniLM view writes the weights file into its folder"
        model = each.models.get_model("minilm")
        assert Path(model.params.layers_file).parent == folder.resolve(), "its model is mapped from that file"
    (a, _), (b, _) = two_apps
    assert a.models is not b.models
    assert a.models.get_model("minilm") is not b.models.get_model("minilm")

    # And the view's numbers are computed by the app's own model (a view of another sentence, on app b):
    ran = []
    own = b.models.get_model("minilm")

    class Watched:
        def __getattr__(self, name: str) -> object:
            return getattr(own, name)

        def run(self, text: str) -> object:
            ran.append(text)
            return own.run(text)

    with b.models.substituted("minilm", Watched()):
        assert TestClient(b).get(MINILM_VIEW.replace("mat", "rug")).status_code == 200
    assert ran == ["the cat sat on the rug"]


def test_apps_with_the_same_folder_share_its_models(tmp_path):
    same = [create_app(Settings(model_cache_dir=str(tmp_path), access_log=False)) for _ in range(2)]
    assert same[0].models is same[1].models and same[0].models.cache_dir == tmp_path.resolve()
    assert create_app(Settings(model_cache_dir="", access_log=False)).models.cache_dir is None  # empty: no file
