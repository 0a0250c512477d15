"""The app's state: one set of parameter names for the share URL, the page and the JSON API.

``GET /?source=...`` (the page), ``GET /api/attention?source=...`` (its JSON twin) and
``POST /api/attention`` (the same fields as JSON) all validate through this module, and
``share_path`` writes the canonical link back: defaults left out, a fixed order, so one view
has exactly one URL.
"""

import math
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import quote_plus, urlencode

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

MAX_CHARACTERS = 1000
MAX_TOKENS = 128
MAX_MATRIX = 32  # exercise mode: at most 32 rows and 32 columns
MAX_ENTRY = 1e6  # exercise mode: |entry| at most this
HEAD_CHOICES = (1, 2, 4, 8)


def _whole_number(value):
    """Query strings carry text: '4' -> 4, so that choices of whole numbers validate from a URL too."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return value


WholeNumberChoice = BeforeValidator(_whole_number)


class InputError(ValueError):
    """Bad input that validation of single fields cannot see; becomes a 422 naming the field."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def check_text(value, field, *, limit=MAX_CHARACTERS):
    """Sentences and labels: no control characters, at most `limit` characters."""
    for character in value:
        category = unicodedata.category(character)
        if category == "Cc" and character not in "\t\n\r":
            raise ValueError(f"control character U+{ord(character):04X} is not allowed")
        if category == "Cs":
            raise ValueError(f"lone surrogate U+{ord(character):04X} is not allowed (not valid Unicode text)")
    if len(value) > limit:
        raise ValueError(f"at most {limit} characters (got {len(value)})")
    return value


class CommonParams(BaseModel):
    """Every parameter of a view. Field descriptions appear in /docs."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(
        "walk by river bank",
        description="The Source sentence (English, Chinese or both): keys and values; also the queries in "
        f"self-attention. 1 to {MAX_TOKENS} tokens, at most {MAX_CHARACTERS} characters.",
    )
    target: str | None = Field(
        None,
        description="The Target sentence. Given and not blank: encoder-decoder (cross) attention, each target word "
        "queries the source words. Absent or empty: self-attention over the source.",
    )
    model: Literal["toy", "minilm"] = Field(
        "toy",
        description="toy: the teaching engine on lexicon or hashed vectors. minilm: the real pretrained "
        "all-MiniLM-L6-v2 (6 layers x 12 heads, English word pieces), self-attention only.",
    )
    layer: int = Field(0, ge=0, le=5, description="minilm only: which of the 6 layers (from 0).")
    score: Literal["dot", "scaled_dot", "cosine", "general", "additive"] = Field(
        "scaled_dot",
        description="Stage 1 similarity: dot q·k; scaled_dot q·k/√d_k (Transformer); cosine; general qᵀWk (Luong); "
        "additive vᵀtanh(W₁q+W₂k) (Bahdanau).",
    )
    heads: Annotated[Literal[1, 2, 4, 8], WholeNumberChoice] = Field(
        1, description="Number of attention heads; must divide the dimension."
    )
    temperature: float = Field(
        1.0, ge=0.05, le=20, allow_inf_nan=False, description="Softmax temperature: weights = softmax(score / T)."
    )
    hard: bool = Field(False, description="Hard attention: weight 1 on the best visible key, 0 elsewhere.")
    window: int | None = Field(
        None,
        ge=0,
        le=MAX_TOKENS,
        description="Local attention: a query sees only keys within this many positions of its aligned position. "
        "Absent: global attention.",
    )
    causal: bool = Field(False, description="Self-attention only: a query sees only itself and earlier tokens.")
    positional: bool = Field(False, description="Add sinusoidal position codes to the word vectors.")
    embedding: Literal["lexicon", "hash"] = Field(
        "lexicon",
        description="lexicon: 16 named features from the curated bilingual lexicon (unknown words hashed). "
        "hash: every word a hashed random unit vector (the baseline).",
    )
    dim: int = Field(16, ge=2, le=64, description="Vector width; the lexicon has 16 features, hash takes 2 to 64.")
    projection: Literal["identity", "random"] = Field(
        "identity",
        description="identity: Q = K = V = X (with several heads each head takes its own slice of the features). "
        "random: seeded random W_Q, W_K, W_V, W_O.",
    )
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Seed of the random projections and score parameters.")
    head: int | None = Field(
        None,
        ge=0,
        le=11,
        description="The current head (from 0). minilm: return only this head (absent: all 12 of the layer). "
        "toy: page view state only.",
    )
    step: int = Field(0, ge=0, le=MAX_TOKENS - 1, description="View state: the current query step (from 0).")
    stage: Annotated[Literal[1, 2, 3], WholeNumberChoice] = Field(1, description="View state: the stage in focus.")
    lang: Literal["en", "zh"] | None = Field(None, description="View state: page language (absent: Accept-Language).")
    present: bool = Field(False, description="View state: presentation mode for projecting in a classroom.")
    hide_special: bool = Field(
        False, description="View state (minilm): hide the [CLS] and [SEP] columns and renormalise the other weights."
    )

    @field_validator("source", "target")
    @classmethod
    def _sentence(cls, value, info):
        if value is None:
            return None
        return check_text(value, info.field_name)


MATRIX_HELP = (
    f"Exercise mode: a matrix of at most {MAX_MATRIX}x{MAX_MATRIX} finite numbers (|x| <= {MAX_ENTRY:g}). "
    "In a URL: rows separated by ';', numbers by ',' or spaces, e.g. 1,0;0,1."
)
LABELS_HELP = "Exercise mode: names of the rows, comma-separated in a URL."


class AttentionQuery(CommonParams):
    """GET parameters: matrices and labels are written as text."""

    q: str | None = Field(None, description="Queries. " + MATRIX_HELP, max_length=20_000)
    k: str | None = Field(None, description="Keys. " + MATRIX_HELP, max_length=20_000)
    v: str | None = Field(
        None, description="Values (may be wider or narrower than q and k). " + MATRIX_HELP, max_length=20_000
    )
    query_labels: str | None = Field(None, description=LABELS_HELP, max_length=2_000)
    key_labels: str | None = Field(None, description=LABELS_HELP, max_length=2_000)


Row = Annotated[list[Annotated[float, Field(allow_inf_nan=False)]], Field(max_length=MAX_MATRIX)]
Matrix = Annotated[list[Row], Field(max_length=MAX_MATRIX)]
Labels = Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=MAX_MATRIX)]


class AttentionBody(CommonParams):
    """POST body: the same fields, with matrices as lists of rows."""

    q: Matrix | None = Field(None, description="Queries, a list of rows. " + MATRIX_HELP)
    k: Matrix | None = Field(None, description="Keys, a list of rows. " + MATRIX_HELP)
    v: Matrix | None = Field(None, description="Values, a list of rows. " + MATRIX_HELP)
    query_labels: Labels | None = Field(None, description="Names of the query rows.")
    key_labels: Labels | None = Field(None, description="Names of the key rows.")


# ---------------------------------------------------------------------------
# Text forms of matrices and labels (URL <-> lists)
# ---------------------------------------------------------------------------


def parse_matrix(text, field):
    rows = [row for row in text.replace("\n", ";").split(";") if row.strip()]
    matrix = []
    for row in rows:
        numbers = [item for item in row.replace(",", " ").split() if item]
        try:
            matrix.append([float(item) for item in numbers])
        except ValueError:
            raise InputError(field, f"row {len(matrix) + 1} has something that is not a number: {row.strip()[:40]!r}")
    return matrix


def format_number(x):
    """Shortest text that reads back as the same float: 1.0 -> '1', 0.25 -> '0.25'."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def format_matrix(matrix):
    return ";".join(",".join(format_number(x) for x in row) for row in matrix)


def parse_labels(text):
    return [label.strip() for label in text.split(",")]


# ---------------------------------------------------------------------------
# The validated state
# ---------------------------------------------------------------------------

ORDER = (
    tuple(CommonParams.model_fields)[:3]
    + ("q", "k", "v", "query_labels", "key_labels")
    + tuple(CommonParams.model_fields)[3:]
)
VIEW_FIELDS = (
    "head",
    "step",
    "stage",
    "lang",
    "present",
    "hide_special",
)  # how the view is shown, not what it computes


@dataclass(frozen=True)
class State:
    values: dict  # field name -> canonical value (matrices as lists of rows, labels as lists)

    def __getattr__(self, name):
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name)

    @property
    def mode(self):
        if self.values["q"] is not None:
            return "exercise"
        if self.values["model"] == "minilm":
            return "model"
        return "cross" if self.values["target"] is not None else "self"

    def changed(self):
        """(name, value) of every field that differs from its default, in the canonical order."""
        for name in ORDER:
            value = self.values[name]
            if value != DEFAULTS[name]:
                yield name, value

    def query_string(self):
        pairs = []
        for name, value in self.changed():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif name in ("q", "k", "v"):
                text = format_matrix(value)
            elif name in ("query_labels", "key_labels"):
                text = ",".join(value)
            elif isinstance(value, float):
                text = format_number(value)
            else:
                text = str(value)
            pairs.append((name, text))
        return urlencode(pairs, quote_via=quote_plus, safe=",;:")

    def share_path(self, base="/"):
        query = self.query_string()
        return f"{base}?{query}" if query else base

    def replace(self, **changes):
        return State({**self.values, **changes})


DEFAULTS = {**{name: field.default for name, field in CommonParams.model_fields.items()},
            "q": None, "k": None, "v": None, "query_labels": None, "key_labels": None}  # fmt: skip


def make_state(params):
    """Check what single-field validation cannot, and return the canonical State.

    Raises InputError(field, message) naming the field and the limit.
    """
    from app.engine.text.tokenize import tokenize  # the tokenizer is needed to count tokens

    values = params.model_dump()
    if values["target"] is not None and not values["target"].strip():
        values["target"] = None  # an empty Target box means self-attention
    for name in ("q", "k", "v"):
        if isinstance(values[name], str):
            values[name] = parse_matrix(values[name], name) if values[name].strip() else None
    for name in ("query_labels", "key_labels"):
        if isinstance(values[name], str):
            values[name] = parse_labels(values[name]) if values[name].strip() else None
        elif values[name] is not None:
            values[name] = [label.strip() for label in values[name]]  # the link form strips them too
    state = State(values)
    if state.q is None and any(values[name] is not None for name in ("k", "v", "query_labels", "key_labels")):
        raise InputError("q", "exercise mode needs q, k and v (k, v or labels came without q)")

    if state.mode == "exercise":
        check_exercise(state)
        n_queries = len(state.q)
    else:
        n_queries = check_sentences(state, tokenize)
    if state.heads != 1 and state.mode in ("exercise", "model"):
        raise InputError("heads", f"applies to the toy engine only; {state.mode} mode has its own heads")
    if state.embedding == "lexicon" and state.dim != 16 and state.mode in ("self", "cross"):
        raise InputError("dim", "the lexicon has 16 features; dim applies to embedding=hash")
    if state.mode in ("self", "cross") and state.dim % state.heads:
        raise InputError("heads", f"{state.heads} heads do not divide the dimension {state.dim}")
    if state.mode in ("self", "cross") and state.head is not None and state.head >= state.heads:
        raise InputError("head", f"must be less than heads={state.heads}")
    return state.replace(step=min(state.step, n_queries - 1))


def check_sentences(state, tokenize):
    """Token limits of the sentences; returns the number of queries."""
    if not state.source.strip():
        raise InputError("source", "must not be empty")
    n_source = len(tokenize(state.source))
    if n_source > MAX_TOKENS:
        raise InputError("source", f"at most {MAX_TOKENS} tokens (got {n_source})")
    if state.mode == "model":
        if state.target is not None:
            raise InputError("target", "the minilm model shows self-attention only; leave target empty")
        return n_source  # the model's own word pieces are checked when it runs
    if state.mode == "cross":
        if state.causal:
            raise InputError("causal", "applies to self-attention only (leave target empty)")
        n_target = len(tokenize(state.target))
        if n_target > MAX_TOKENS:
            raise InputError("target", f"at most {MAX_TOKENS} tokens (got {n_target})")
        return n_target
    return n_source


def check_exercise(state):
    """Shapes and sizes of hand-typed q, k, v."""
    for name in ("k", "v"):
        if state.values[name] is None:
            raise InputError(name, "exercise mode needs q, k and v")
    for name in ("q", "k", "v"):
        matrix = state.values[name]
        if not matrix:
            raise InputError(name, "needs at least one row")
        if len(matrix) > MAX_MATRIX:
            raise InputError(name, f"at most {MAX_MATRIX} rows (got {len(matrix)})")
        widths = {len(row) for row in matrix}
        if len(widths) != 1:
            raise InputError(name, f"every row needs the same number of columns (got {sorted(widths)})")
        width = widths.pop()
        if not 1 <= width <= MAX_MATRIX:
            raise InputError(name, f"1 to {MAX_MATRIX} columns (got {width})")
        if any(not math.isfinite(x) or abs(x) > MAX_ENTRY for row in matrix for x in row):
            raise InputError(name, f"entries must be finite numbers with |x| <= {MAX_ENTRY:g}")
    if len(state.q[0]) != len(state.k[0]):
        raise InputError("k", f"keys need as many columns as queries ({len(state.q[0])}, got {len(state.k[0])})")
    if len(state.k) != len(state.v):
        raise InputError("v", f"one value row per key ({len(state.k)}, got {len(state.v)})")
    if state.score not in ("dot", "scaled_dot", "cosine"):
        raise InputError("score", "exercise mode takes dot, scaled_dot or cosine")
    if state.causal and len(state.q) != len(state.k):
        raise InputError("causal", "needs as many queries as keys")
    for name, rows in (("query_labels", state.q), ("key_labels", state.k)):
        labels = state.values[name]
        if labels is not None:
            if len(labels) != len(rows):
                raise InputError(name, f"one label per row ({len(rows)}, got {len(labels)})")
            for label in labels:
                if not label or "," in label:
                    raise InputError(
                        name, "each label needs at least one character and no comma (commas separate them)"
                    )
                try:
                    check_text(label, name, limit=40)
                except ValueError as error:
                    raise InputError(name, str(error))
