"""The answer is declared once (app/view/answer.py) and the API's schema is that declaration: real answers of every
mode, as /api/attention sends them, are checked against /openapi.json with no field beyond those declared at any
level, and carry every declared field, in the declared order (the order the JSON's bytes follow)."""

from dataclasses import fields

import jsonschema_rs
import pytest

from app.view.answer import Answer

DECLARED = [f.name for f in fields(Answer)]

VIEWS = {  # every mode, and the branches that change the answer's shape, as the links' query strings
    "self": "source=walk+by+river+bank",
    "self, named heads on the word vectors": "source=he+saw+the+bank&plane=embedding&step=1",
    "self, random heads, general score": "source=the+cat+sat+on+the+mat&projection=random&heads=4&score=general",
    "self, identity, cosine, hard": "source=walk+by+river+bank&projection=identity&score=cosine&hard=true",
    "self, hashed vectors, additive": "source=zebras+like+stripes&embedding=hash&projection=random&score=additive",
    "cross": "source=Tom+chase+Jerry&target=汤姆+追逐+杰瑞",
    "exercise": "q=1,0;0,1&k=1,0;0,1;1,1&v=1,2;3,4;5,6&score=dot",
    "model, MiniLM pieces": "source=the+bank+of+the+river&model=minilm&layer=2&head=4",
    "model, MiniLM words": "source=the+bank+of+the+river&model=minilm&units=words&hide_special=true",
    "model, e5": "source=我们坐在河岸上&model=e5",
    "model, MiniLM value zeroing": "source=the+bank+of+the+river&model=minilm&attribution=zeroing&layer=3",
    "translate, rnnsearch": "source=Tom+chase+Jerry&model=rnnsearch",
    "translate, rnnsearch forced": "source=Tom+chase+Jerry&target=汤姆+追逐+杰瑞&model=rnnsearch",
    "translate, transformer-mt beam": "source=Tom+chase+Jerry&model=transformer-mt&beam=3&layer=1&head=2",
    "translate, rnnencdec": "source=Tom+chase+Jerry&model=rnnencdec",
    "translate, rnnencdec leave-one-out": "source=Tom+chase+Jerry&model=rnnencdec&attribution=leave-one-out",
}


def strict(schema):
    """The schema with no field allowed beyond those declared, at every level of every object."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    tightened = {key: strict(value) for key, value in schema.items()}
    if "properties" in tightened and "additionalProperties" not in tightened:
        tightened["additionalProperties"] = False
    return tightened


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").json()


def validator(spec, path, method="get"):
    """A validator of the 200 answer of `path`, by the API's own schema made strict."""
    answer = spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
    return jsonschema_rs.validator_for({**answer, "components": strict(spec["components"])})


def test_the_schema_of_the_answer_is_the_declaration(spec):
    answer = spec["components"]["schemas"]["Answer"]
    for method in ("get", "post"):
        content = spec["paths"]["/api/attention"][method]["responses"]["200"]["content"]["application/json"]
        assert content["schema"] == {"$ref": "#/components/schemas/Answer"}
    assert list(answer["properties"]) == DECLARED
    assert sorted(answer["required"]) == sorted(DECLARED)  # every field is sent, null where a mode has none
    assert [name for name, field in answer["properties"].items() if not field.get("description")] == []


@pytest.mark.parametrize("name, query", VIEWS.items(), ids=VIEWS.keys())
def test_a_real_answer_is_what_the_schema_declares(client, spec, name, query):
    response = client.get(f"/api/attention?{query}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["mode"] == name.split(",")[0]
    errors = validator(spec, "/api/attention").iter_errors(body)
    assert [f"{'/'.join(map(str, error.instance_path))}: {error.message}" for error in errors] == []
    assert list(body) == DECLARED


def test_a_posted_exercise_and_the_panes_of_a_comparison_too(client, spec):
    body = client.post("/api/attention", json={"q": [[1, 0]], "k": [[1, 0], [0, 1]], "v": [[2], [3]]}).json()
    validator(spec, "/api/attention", "post").validate(body)
    assert list(body) == DECLARED
    compare = client.get("/api/compare", params={"a.source": "walk by river bank", "b.source": "the river bank"})
    assert compare.status_code == 200, compare.text
    validator(spec, "/api/compare").validate(compare.json())
    assert [list(pane) for pane in compare.json()["panes"].values()] == [DECLARED, DECLARED]
