"""Same parameters, byte-identical JSON across server processes with different PYTHONHASHSEED."""

from pathlib import Path

import httpx
import pytest

from tests.support.live_server import LiveServer

ROOT = Path(__file__).resolve().parents[1]

GET_CASES = [
    {"source": "walk by river bank"},
    {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": "2"},
    {"source": "我们在河边散步然后去银行取钱", "projection": "random", "score": "additive", "heads": "4", "seed": "11"},
    {
        "source": "the qwxjv zorblax sat by the river",
        "embedding": "hash",
        "dim": "24",
        "heads": "2",
        "projection": "identity",
        "positional": "true",
    },
    {"source": "the dog chased the cat into the house", "causal": "true", "window": "2", "temperature": "0.3"},
]
POST_CASES = [
    {
        "q": [[1, 0], [0, 1]],
        "k": [[1, 0], [0, 1], [1, 1]],
        "v": [[1, 2, 3], [3, 4, 5], [5, 6, 7]],
        "score": "scaled_dot",
        "temperature": 0.7,
        "query_labels": ["q1", "q2"],
        "key_labels": ["a", "b", "c"],
    },
    {
        "source": "the teacher gave the student a book",
        "heads": 8,
        "projection": "random",
        "score": "general",
        "seed": 3,
    },
]


pytestmark = pytest.mark.slow  # starts two servers


@pytest.fixture(scope="module")
def servers():
    """Two app processes with different hash seeds, started at once (each warms up jieba and the model)."""
    started = [LiveServer(env={"PYTHONHASHSEED": str(seed), "ACCESS_LOG": "0"}) for seed in (1, 2)]
    try:
        for server in started:
            server.launch()
        for server in started:
            server.wait_until_ready()
        yield [server.base for server in started]
    finally:
        for server in started:
            server.stop()


@pytest.mark.parametrize("params", GET_CASES, ids=range(len(GET_CASES)))
def test_get_is_byte_identical_across_processes(servers, params):
    bodies = []
    for base in servers:
        response = httpx.get(base + "/api/attention", params=params, timeout=30)
        assert response.status_code == 200, response.text
        bodies.append(response.content)
    assert bodies[0] == bodies[1]
    assert len(bodies[0]) > 500


@pytest.mark.parametrize("body", POST_CASES, ids=range(len(POST_CASES)))
def test_post_is_byte_identical_across_processes(servers, body):
    bodies = []
    for base in servers:
        response = httpx.post(base + "/api/attention", json=body, timeout=30)
        assert response.status_code == 200, response.text
        bodies.append(response.content)
    assert bodies[0] == bodies[1]


def test_the_in_process_app_agrees_with_the_servers(servers, client):
    """A third process (this one, another hash seed) gives the same bytes as the servers."""
    params = GET_CASES[2]
    local = client.get("/api/attention", params=params).content
    remote = httpx.get(servers[0] + "/api/attention", params=params, timeout=30).content
    assert local == remote


@pytest.mark.parametrize("params", GET_CASES, ids=range(len(GET_CASES)))
def test_the_fixed_resource_is_the_same_bytes_in_every_process(servers, params):
    """The resource a sentence's answer names is computed from its URL alone: each server answers it, same bytes."""
    href = httpx.get(servers[0] + "/api/attention", params=params, timeout=30).json()["fixed"]["href"]
    answers = [httpx.get(base + href, timeout=30) for base in servers]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert answers[0].content == answers[1].content
