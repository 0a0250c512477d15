"""Response shapes, for the OpenAPI schema (/docs). The API sends bytes built by app.web.jsonio."""

from typing import Any, Literal

from pydantic import BaseModel, Field

Matrix = list[list[float]]


class Tokens(BaseModel):
    queries: list[str] = Field(description="Query tokens (rows), as written. Self-attention: the source's tokens.")
    keys: list[str] = Field(description="Key (and value) tokens (columns), as written.")


class Embeddings(BaseModel):
    queries: Matrix = Field(description="(n_queries, d_model) input vectors of the queries, positions added if on.")
    keys: Matrix = Field(description="(n_keys, d_model) input vectors of the keys and values.")


class Head(BaseModel):
    q: Matrix = Field(description="(n_queries, d_k) this head's queries.")
    k: Matrix = Field(description="(n_keys, d_k) this head's keys.")
    v: Matrix = Field(description="(n_keys, d_v) this head's values.")
    scores: Matrix = Field(
        description="Stage 1: (n_queries, n_keys) similarity, after the √d_k scaling of scaled_dot, "
        "before the temperature and the mask."
    )
    mask: list[list[bool]] = Field(description="(n_queries, n_keys) true where the query may see the key.")
    weights: Matrix = Field(description="Stage 2: (n_queries, n_keys) attention weights; each row sums to 1.")
    output: Matrix = Field(description="Stage 3: (n_queries, d_v) weighted sum of the values.")
    parameters: dict[str, Matrix | list[float]] = Field(
        description="Every named matrix this head used: W_Q, W_K, W_V (d_model, d_k); W (general); W1, W2, v (additive)."
    )


class ModelOverview(BaseModel):
    size: int = Field(description="Side of each map (at most 32; longer sentences are averaged in blocks).")
    maps: list[list[str]] = Field(
        description="maps[layer][head]: size x size weights as bytes 0..255 (weight x 255), base64, row by row."
    )


class AttentionResponse(BaseModel):
    params: dict[str, Any] = Field(description="The canonical parameters, defaults filled in.")
    share_path: str = Field(
        description="The canonical link to this view (the page); /api/attention takes the same query."
    )
    mode: Literal["self", "cross", "exercise", "model"] = Field(
        description="self: one sentence; cross: target words query source words; exercise: hand-typed q, k, v; "
        "model: the real pretrained model."
    )
    tokens: Tokens = Field(description="The row (query) and column (key) labels.")
    unknown_tokens: list[str] = Field(description="Words the lexicon lacks; they got a hashed vector.")
    features: list[str] | None = Field(description="Names of the lexicon's feature dimensions, or null.")
    embeddings: Embeddings | None = Field(description="The input vectors (null in exercise and model modes).")
    d_model: int = Field(description="Width of the input vectors.")
    d_k: int = Field(description="Width of each head's queries and keys.")
    heads: list[Head] = Field(description="Every head's three stages (minilm: the heads listed in heads_shown).")
    output: Matrix | None = Field(
        description="(n_queries, d_model) the heads concatenated and projected by W_O (null for minilm)."
    )
    parameters: dict[str, Matrix] = Field(description="Parameters shared by the heads: W_O.")
    heads_shown: list[int] | None = Field(None, description="minilm: which heads of the layer `heads` holds.")
    overview: ModelOverview | None = Field(None, description="minilm: a small weight map of every layer and head.")


class ErrorItem(BaseModel):
    loc: list[str | int] = Field(description="Where: ['query' or 'body', field, row, column...].")
    msg: str = Field(description="What is wrong, with the limit.")
    type: str = Field(description="Kind of error.")
    field: str = Field(description="The parameter at fault.")


class ErrorResponse(BaseModel):
    detail: list[ErrorItem] | str = Field(description="Every problem found (or one sentence for 503).")
    message: str = Field(description="One line for people: the field and what is wrong, with the limit.")
