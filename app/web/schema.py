"""Response shapes, for the OpenAPI schema (/docs). The API sends bytes built by app.web.jsonio.

The answer of a view is declared once, in app.view.answer (what compute_view fills); the shapes here wrap it."""

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.view.answer import Answer, Arithmetic, ColumnNames, Matrix, Vector


class ArithmeticResponse(BaseModel):
    share_path: str = Field(description="The canonical link to the view this step belongs to.")
    arithmetic: Arithmetic = Field(description="Every number of the current step of the head in focus.")


class FixedHead(BaseModel):
    name: str | None = Field(description="A named head's name (null for other projections).")
    question: dict[str, str] | None = Field(description="A named head's question in words, by language.")
    note: dict[str, str] | None = Field(description="One sentence about the head, by language (the view's head_note).")
    names: ColumnNames = Field(description="Names of the head's columns, where they have names.")
    parameters: dict[str, Matrix | Vector] = Field(
        description="Every named matrix the head uses: W_Q, W_K, W_V (d_model, d_k); W (general); W1, W2, v (additive)."
    )


class FixedResponse(BaseModel):
    """What every sentence view at some settings shares (app/view/fixed.py): the resource an answer's `fixed.href`
    names."""

    kind: Literal["self", "cross"] = Field(description="Self-attention, or encoder-decoder (cross) attention.")
    features: list[str] | None = Field(description="Names of the lexicon's feature dimensions, or null.")
    parameters: dict[str, Matrix] = Field(description="Parameters shared by the heads: W_O (empty for named heads).")
    heads: list[FixedHead] = Field(description="Every head, in order (a view's focus.head indexes it).")


class ErrorItem(BaseModel):
    loc: list[str | int] = Field(description="Where: ['query' or 'body', field, row, column...].")
    msg: str = Field(description="What is wrong, with the limit, in the request's language (lang or Accept-Language).")
    type: str = Field(description="Kind of error; the same in every language.")
    field: str = Field(description="The parameter at fault.")


class ErrorResponse(BaseModel):
    detail: list[ErrorItem] | str = Field(description="Every problem found (or one sentence for 503).")
    message: str = Field(description="One line for people: the field and what is wrong, with the limit.")


class KeyWeight(BaseModel):
    key: str = Field(description="A key word.")
    weight: float = Field(description="The focus word's weight on it.")


class Differing(BaseModel):
    name: str = Field(description="A feature (teaching engine) or dimension (models) of the output.")
    a: float = Field(description="Its value in pane a's output for the focus word.")
    b: float = Field(description="Its value in pane b's output for the focus word.")


class FocusWord(BaseModel):
    steps: dict[str, int] = Field(description="Where the focus word is in each pane (its query step).")
    top: dict[str, list[KeyWeight]] = Field(description="Each pane's largest weights of the focus word.")
    output_cosine: float | None = Field(description="Cosine similarity of the focus word's two outputs (stage 3).")
    differing: list[Differing] = Field(description="The output features that differ most between the panes.")
    drift: list[float] | None = Field(
        description="Real models (one model in both panes): cosine of the focus word's hidden states, from the "
        "embeddings (0) to the last layer."
    )


class CompareResponse(BaseModel):
    share_path: str = Field(description="The canonical link of the comparison (/compare?a.…&b.…).")
    params: dict[str, Any] = Field(description="The comparison's own parameters: focus, pane, lang, present.")
    weights_max: float = Field(description="The largest weight of both panes: the one colour scale's top.")
    panes: dict[str, Answer] = Field(description="Pane a's and pane b's views, stepped to the focus word.")
    focus: str | None = Field(description="The word compared, or null when the panes share no word.")
    shared: list[str] = Field(description="Every word both panes' queries contain.")
    word: FocusWord | None = Field(None, description="The focus word compared (absent without a shared word).")
