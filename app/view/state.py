"""The state of a view: every parameter declared once, validated once, written back as one link.

``State`` is the single source of truth: the share URL's query string, the page's form, the JSON API
(GET with the same query string, POST with the same fields as JSON), the OpenAPI docs and the
tests all use its field names. Each field declares its type, default, bounds or choices and
description (pydantic), plus a ``Control`` (app/view/spec.py): which control shows it, the modes
it applies to, and whether it is view state. Rules between fields are the model validators at the
end. ``State.query_string()`` writes the canonical link: defaults left out, a fixed order (what is
computed, then how it is shown), so one view has exactly one URL. A comparison (/compare) is declared
the same way: ``Comparison``, two States (panes ``a`` and ``b``, their parameters prefixed in a link) and
its own view state, written back by the same ``link_query``.

Validation reads no model: a real model's or a translator's layers, heads and limits come from a table
(``models.FACTS``); what only the model knows (its word pieces, the words a translator produces) is
settled when the view is computed (app/view/compute.py, ``settled``).
"""

from __future__ import annotations

import functools
import math
import unicodedata
from typing import Annotated, Any, Literal
from urllib.parse import quote_plus, urlencode

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from app.engine.attention.named_heads import NAMED_HEADS
from app.engine.models.translator import DEFAULT_BEAM
from app.engine.models.translator import MAX_SOURCE_WORDS as MAX_TRANSLATOR_WORDS
from app.view import models
from app.view.messages import TEMPLATES
from app.view.spec import (
    CROSS,
    ENGINE,
    EVERY_MODE,
    EXERCISE,
    MODEL,
    MODES,
    SELF,
    SENTENCES,
    TOY,
    TRANSLATE,
    Choices,
    Control,
    ParamSpec,
    read_specs,
)

MAX_CHARACTERS = 1000  # a sentence
MAX_TOKENS = 128  # words of a sentence for the teaching engine
MAX_MATRIX = 32  # exercise: at most 32 rows and 32 columns
MAX_ENTRY = 1e6  # exercise: |entry| at most this
MAX_LABEL = 40  # exercise: characters of a row name
DEFAULT_SOURCE = "walk by river bank"
# The page's default sentence per language, and the step a fresh start opens on: bank (looks at river, a little at
# tree: the example "bank-tree"), 喝水. Each a row the softmax has not saturated, so the first thing a teacher tries,
# the panel's vector lengths or temperature, visibly changes its weights (tests/test_claims.py checks both).
DEFAULT_SOURCES = {"en": "we sat on the river bank under a tree", "zh": "小猫在河边喝水"}
DEFAULT_STEPS = {"en": 5, "zh": 3}


# What stage 2 can show of a head, and the modes each measure exists in: one line a measure.
ATTRIBUTIONS = {
    "weights": EVERY_MODE,  # the attention weights α_ij
    "norm": EVERY_MODE,  # weight × value norm, α_ij ‖v_j W_O[h]‖ (app/engine/attention/norms.py)
    "zeroing": MODEL,  # value zeroing, one map per layer (app/engine/models/zeroing.py): real models only
    "leave-one-out": TRANSLATE,  # the translators: each word's probability without each English word
}
# Slide mode's panels, numbered from 1 in this order (the `slide` field): the page marks each with its number.
SLIDE_PANELS = ("stage1", "stage2", "stage3", "arithmetic", "bars", "alignment", "geometry", "translation")
ATTENDING_MODELS = ("toy", *models.MODEL_NAMES, *(name for name in models.TRANSLATOR_NAMES if name != "rnnencdec"))


def error(error_type: str, field: str | None = None, **context: Any) -> PydanticCustomError:
    """A validation error of our own, in English from messages.TEMPLATES (every message's one source; the API
    writes it in the reader's language from the same type and context); `field` names the parameter at fault when a
    model validator finds it."""
    if field is not None:
        context["field"] = field
    return PydanticCustomError(error_type, TEMPLATES["en"][error_type], context)


# ---------------------------------------------------------------------------
# Field validators: text, numbers from links, matrices and labels
# ---------------------------------------------------------------------------


def check_text(value: str, limit: int = MAX_CHARACTERS) -> str:
    """Sentences and names: valid Unicode text without control characters, at most `limit` characters."""
    for character in value:
        category = unicodedata.category(character)
        if category == "Cc" and character not in "\t\n\r":
            raise error("control_character", character=_code(character))
        if category == "Cs":
            raise error("lone_surrogate", character=_code(character))
    if len(value) > limit:
        raise error("too_many_characters", limit=limit, count=len(value))
    return value


def _code(character: str) -> str:
    return f"U+{ord(character):04X}"


def blank_is_none(value: Any) -> Any:
    """An empty Target box means self-attention; an empty number box means 'not set'."""
    return None if isinstance(value, str) and not value.strip() else value


def in_choices(*choices: int) -> tuple[Choices, AfterValidator, Any]:
    """Metadata of a whole-number parameter with a fixed set of values (links carry them as text)."""

    def check(value: int) -> int:
        if value not in choices:
            raise error("not_a_choice", expected=list(choices))
        return value

    return Choices(choices), AfterValidator(check), Field(json_schema_extra={"enum": list(choices)})


def from_link(info: ValidationInfo) -> bool:
    """Validating a link's text (GET), rather than a JSON body whose matrices and names are lists."""
    return bool(info.context and info.context.get("link"))


def parse_matrix(value: Any, info: ValidationInfo) -> Any:
    """A matrix as a link writes it, '1,0;0,1' (rows by ';' or new lines, numbers by ',' or spaces)."""
    if not isinstance(value, str) or not from_link(info):
        return value
    rows = [row for row in value.replace("\n", ";").split(";") if row.strip()]
    matrix = []
    for number, row in enumerate(rows, start=1):
        try:
            matrix.append([float(item) for item in row.replace(",", " ").split()])
        except ValueError:
            raise error("matrix_number", row=number, text=row.strip()[:40]) from None
    return matrix or None


def check_matrix(matrix: tuple[tuple[float, ...], ...] | None) -> tuple[tuple[float, ...], ...] | None:
    if matrix is None:
        return None
    if not matrix:
        raise error("matrix_empty")
    if len(matrix) > MAX_MATRIX:
        raise error("matrix_rows", limit=MAX_MATRIX, count=len(matrix))
    widths = sorted({len(row) for row in matrix})
    if len(widths) != 1:
        raise error("matrix_ragged", widths=widths)
    if not 1 <= widths[0] <= MAX_MATRIX:
        raise error("matrix_columns", limit=MAX_MATRIX, count=widths[0])
    if any(not math.isfinite(x) or abs(x) > MAX_ENTRY for row in matrix for x in row):
        raise error("matrix_entries", limit=f"{MAX_ENTRY:g}")
    return matrix


def parse_labels(value: Any, info: ValidationInfo) -> Any:
    """Row names: 'a, b, c' in a link, a list in JSON; stripped either way so that links round-trip."""
    if isinstance(value, str) and from_link(info):
        value = value.split(",") if value.strip() else None
    if isinstance(value, (list, tuple)):
        return [label.strip() if isinstance(label, str) else label for label in value]
    return value


def check_labels(labels: tuple[str, ...] | None) -> tuple[str, ...] | None:
    for label in labels or ():
        if not label or "," in label:
            raise error("label_text")
        check_text(label, MAX_LABEL)
    return labels


Sentence = Annotated[str, AfterValidator(check_text)]
Matrix = Annotated[
    tuple[tuple[float, ...], ...] | None,
    BeforeValidator(parse_matrix),
    AfterValidator(check_matrix),
    Control("matrix", EXERCISE, group="exercise"),
]
Labels = Annotated[
    tuple[str, ...] | None,
    BeforeValidator(parse_labels),
    AfterValidator(check_labels),
    Control("text", EXERCISE, group="exercise"),
]
MATRIX_HELP = (
    f"Exercise: a matrix of at most {MAX_MATRIX}x{MAX_MATRIX} finite numbers (|x| <= {MAX_ENTRY:g}). "
    "JSON: a list of rows. Link: rows separated by ';', numbers by ',' or spaces, e.g. 1,0;0,1."
)
LABELS_HELP = f"Exercise: names of the rows (at most {MAX_LABEL} characters, no comma). Link: comma-separated."


# ---------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------


class State(BaseModel):
    """Every parameter of a view. Descriptions appear in /docs; the order is the canonical link's."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    # ---- what is computed ------------------------------------------------------------------
    source: Annotated[Sentence, Control("textarea", SENTENCES)] = Field(
        DEFAULT_SOURCE,
        description="The Source sentence (English, Chinese or both): keys and values; also the queries in "
        f"self-attention. At most {MAX_CHARACTERS} characters and {MAX_TOKENS} words (real models: their own "
        "limit of word pieces).",
    )
    target: Annotated[Sentence | None, BeforeValidator(blank_is_none), Control("textarea", CROSS | TRANSLATE)] = Field(
        None,
        description="The Target sentence. Given and not blank: encoder-decoder (cross) attention, each target word "
        "queries the source words. Absent or empty: self-attention over the source. With a trained translator "
        "(model=rnnsearch, transformer-mt, rnnencdec): absent or empty, the model translates the source; given "
        "(Chinese words separated by spaces), the model is made to produce it.",
    )
    q: Matrix = Field(None, description="Queries (n_queries rows). " + MATRIX_HELP)
    k: Matrix = Field(None, description="Keys (n_keys rows, as many columns as q). " + MATRIX_HELP)
    v: Matrix = Field(None, description="Values (one row per key; any width). " + MATRIX_HELP)
    query_labels: Labels = Field(None, description="Names of the query rows. " + LABELS_HELP)
    key_labels: Labels = Field(None, description="Names of the key rows. " + LABELS_HELP)
    model: Annotated[
        Literal["toy", "minilm", "e5", "rnnsearch", "transformer-mt", "rnnencdec"],
        Control(
            "select",
            MODEL | CROSS | TRANSLATE,
            group="model",
            choice_modes={
                "toy": SELF | CROSS | EXERCISE,
                "minilm": MODEL,
                "e5": MODEL,
                **dict.fromkeys(models.TRANSLATOR_NAMES, CROSS | TRANSLATE),
            },
        ),
    ] = Field(
        "toy",
        description="toy: the teaching engine on word vectors. Real pretrained models, self-attention over the "
        "source, every layer and head: minilm is all-MiniLM-L6-v2 (English word pieces, 6 layers x 12 heads); e5 is "
        "multilingual-e5-small with 4-bit weights (Chinese, English and about 100 languages, 12 layers x 12 heads). "
        "Trained English→Chinese translators (encoder-decoder, trained here on a generated corpus of about 3,900 "
        f"English words, at most {MAX_TRANSLATOR_WORDS} words a sentence): "
        "rnnsearch (additive attention, Bahdanau et al.), transformer-mt (a small Transformer, 2 layers x 4 heads, "
        "cross-attention and the decoder's masked self-attention; trained on Tatoeba's sentence pairs too, about 4,100 "
        "English words), rnnencdec (no attention: one context vector for every step).",
    )
    layer: Annotated[int, Control("select", MODEL | TRANSLATE, group="model")] = Field(
        0, ge=0, description="Real models and translators: which layer (from 0; the model's config says how many)."
    )
    beam: Annotated[int, *in_choices(1, 2, 3, 4, 5, 6, 7, 8), Control("select", TRANSLATE, group="model")] = Field(
        DEFAULT_BEAM,
        description="Translators with an empty Target: 1 decodes greedily (the most probable word at each step); "
        "2 to 8 keep that many partial translations (beam search; 8 by default). With the candidates, the end guard "
        "ranks the finished translations by the English words they leave out, then by probability. Ignored when a "
        "Target is given.",
    )
    candidates: Annotated[Literal["dictionary", "all"], Control("select", TRANSLATE, group="model")] = Field(
        "dictionary",
        description="Translators with an empty Target: dictionary chooses each word among the candidates only: words "
        "that are no noun, verb or adjective, and the nouns, verbs and adjectives that translate a word of the "
        "sentence by the dictionary (Jean et al. 2015's candidate list), so the model cannot make a word up; nor may "
        "it end while the check marks an English word left out, if a few more words translate it (the end guard); "
        "where its own first choice was ruled out, the answer says so. all lets it choose any word it knows.",
    )
    hide_special: Annotated[bool, Control("checkbox", MODEL, group="model")] = Field(
        False,
        description="Real models: leave out the special tokens ([CLS], [SEP], <s>, </s>) and e5's 'passage:' prefix "
        "as queries and keys; the softmax is taken over the other keys, so the weights are renormalised and the "
        "outputs recomputed from them.",
    )
    units: Annotated[Literal["pieces", "words"], Control("select", MODEL, group="model")] = Field(
        "pieces",
        description="Real models: pieces shows the model's own word pieces; words merges them into words (Chinese "
        "by jieba, others by spaces and punctuation): attention to a word is the sum over its pieces, attention "
        "from a word the mean over its pieces (Clark et al. 2019), so rows still sum to 1.",
    )
    score: Annotated[
        Literal["dot", "scaled_dot", "cosine", "general", "additive"],
        Control("select", ENGINE, choice_modes={"general": TOY, "additive": TOY}),
    ] = Field(
        "scaled_dot",
        description="Stage 1 similarity: dot q·k; scaled_dot q·k/√d_k (Transformer); cosine; general qᵀWk (Luong); "
        "additive vᵀtanh(W₁q+W₂k) (Bahdanau).",
    )
    heads: Annotated[
        int | None, BeforeValidator(blank_is_none), *in_choices(1, 2, 3, 4, 5, 6, 7, 8), Control("select", TOY)
    ] = Field(
        None,
        description="Number of attention heads. Absent: every named head (self-attention 8, encoder-decoder 4), one "
        "head for the identity and random projections. Named heads: the first 1 to 8 of them; identity and random "
        "projections: the number must divide the vector width.",
    )
    temperature: Annotated[float, Control("range", ENGINE, step=0.05)] = Field(
        1.0, ge=0.05, le=20, allow_inf_nan=False, description="Softmax temperature: weights = softmax(score / T)."
    )
    stretch: Annotated[float, Control("range", ENGINE, step=0.1)] = Field(
        1.0,
        ge=0.1,
        le=10,
        allow_inf_nan=False,
        description="Multiply the length of every query and key vector by this: each q·k grows by its square, so "
        "the softmax saturates as the vectors grow; the √d_k of scaled_dot and the temperature bring it back.",
    )
    hard: Annotated[bool, Control("checkbox", ENGINE)] = Field(
        False, description="Hard attention: weight 1 on the best visible key, 0 elsewhere."
    )
    window: Annotated[int | None, BeforeValidator(blank_is_none), Control("number", ENGINE, step=1)] = Field(
        None,
        ge=0,
        le=MAX_TOKENS,
        description="Local attention: a query sees only keys within this many positions of its aligned position. "
        "Absent: global attention.",
    )
    causal: Annotated[bool, Control("checkbox", SELF | EXERCISE)] = Field(
        False, description="Self-attention: a query sees only itself and earlier tokens."
    )
    positional: Annotated[bool, Control("checkbox", TOY, group="advanced")] = Field(
        True,
        description="Append a sinusoidal position code (16 numbers) to each word vector, so attention can use "
        "word order (the named heads that ask about grammar and the 'previous word' head need it).",
    )
    embedding: Annotated[Literal["lexicon", "hash"], Control("select", TOY, group="advanced")] = Field(
        "lexicon",
        description="lexicon: 16 named meaning features and the word's role (noun, verb, ...: 8 more) from the curated "
        "bilingual lexicon (unknown words: a hashed meaning and a guessed role). "
        "hash: every word a hashed random unit vector (the baseline).",
    )
    dim: Annotated[int, Control("number", TOY, group="advanced", requires={"embedding": ("hash",)}, step=1)] = Field(
        16, ge=2, le=64, description="Width of hashed vectors (embedding=hash); the lexicon: 16 features, 8 roles."
    )
    projection: Annotated[
        Literal["named", "identity", "random"],
        Control("select", TOY, choice_requires={"named": {"embedding": ("lexicon",)}}),
    ] = Field(
        "named",
        description="named: heads that each ask a question in words, W_Q and W_K written over the lexicon's named "
        "features, roles and positions (self-attention: sense, pronoun, previous word, doer, object, describes, "
        "preposition, verb; encoder-decoder: counterpart, aligned position, sense, doer). identity: Q = K = V = X, "
        "each head a slice of the features (a word then looks most at itself). random: seeded random W_Q, W_K, "
        "W_V, W_O, as in an untrained Transformer.",
    )
    seed: Annotated[int, Control("number", TOY, group="advanced", step=1)] = Field(
        0, ge=0, le=2**31 - 1, description="Seed of the random projections and score parameters."
    )
    attribution: Annotated[
        Literal[tuple(ATTRIBUTIONS)],
        Control(
            "select",
            choice_modes=ATTRIBUTIONS,
            choice_requires={"norm": {"model": ATTENDING_MODELS}},
        ),
    ] = Field(
        "weights",
        description="What stage 2's heatmap shows of the head in focus. weights: the attention weights α_ij. norm: "
        "weight × value norm (Kobayashi et al. 2020), α_ij · ‖v_j W_O[h]‖, the length of what key j puts into "
        "query i's output (W_O[h]: the head's rows of the output projection; its bias, added whatever the weights, "
        "left out); the answer then carries the whole matrix (`attribution.contributions`). Every answer carries "
        "the head's ‖v_j W_O[h]‖ per key and the current step's products. Not for rnnencdec, which has no attention. "
        "zeroing (real models): value zeroing (Mohebbi et al. 2023), one map per layer, not per head: how much each "
        "token's output of the layer moves when token j's value vector is zeroed (`value_zeroing`). leave-one-out "
        "(translators): the drop in each word's probability without each English word "
        "(`translation.leave_one_out`). Both cost extra forward passes and are computed only when asked; value zeroing "
        "takes at most 64 word pieces (its cost grows with their square).",
    )

    # ---- how it is shown (view state) -------------------------------------------------------
    head: Annotated[int | None, Control("none", view=True)] = Field(
        None,
        ge=0,
        description="View state: the head in focus, counted from 0 (the page says Head 1 for head=0); its stages are "
        "shown in full. Absent: at each step the named head whose question the query word asks (head 0 for the "
        "identity and random projections and the real models).",
    )
    step: Annotated[int, Control("none", view=True)] = Field(
        0,
        ge=0,
        le=MAX_TOKENS * 4 - 1,
        description="View state: the current query step (from 0); clamped to the last query.",
    )
    stage: Annotated[int, *in_choices(1, 2, 3), Control("none", view=True)] = Field(
        1, description="View state: the stage in focus."
    )
    lang: Annotated[Literal["en", "zh"] | None, Control("none", view=True)] = Field(
        None, description="View state: page language (absent: the browser's Accept-Language)."
    )
    present: Annotated[bool, Control("none", view=True)] = Field(
        False, description="View state: presentation mode for projecting in a classroom."
    )
    summary: Annotated[
        Literal["entropy", "first_token", "last_token", "self", "previous", "next", "punctuation"],
        Control("none", MODEL, view=True),
    ] = Field(
        "entropy",
        description="View state (real models): the statistic that colours the layer x head overview: entropy of the "
        "weights, or the mean attention to the first token, the last token, the word itself, the previous word, the "
        "next word, or punctuation.",
    )
    rank: Annotated[bool, Control("none", view=True)] = Field(
        False,
        description="View state: the current step's weights as bars ranked from the largest, like search results.",
    )
    slide: Annotated[int, Control("none", view=True)] = Field(
        0,
        ge=0,
        le=len(SLIDE_PANELS),
        description="View state: slide mode, one panel at a time sized to the screen (0: off). The panels in order: "
        "1, 2, 3 the stage heatmaps, 4 the arithmetic of the step, 5 the weights as bars, 6 the alignment, "
        "7 the queries and keys as points in one plane, 8 the translation (the trained translators). A panel the "
        "view does not have (8 elsewhere; rnnencdec's 1, 5, 6 and 7: no attention) shows the view's next one.",
    )
    plane: Annotated[
        Literal["qk", "embedding"], Control("none", TOY, view=True, requires={"projection": ("named",)})
    ] = Field(
        "qk",
        description="View state (named heads): the plane of the geometry panel. qk: the head's queries and keys, "
        "after W_Q and W_K; embedding: the word vectors before them, on the two features the head reads most.",
    )

    # ---- derived ----------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """self, cross, exercise or model: which kind of view these parameters describe."""
        if self.q is not None or self.k is not None or self.v is not None:
            return "exercise"
        if self.model in models.TRANSLATOR_NAMES:
            return "translate"
        if self.model != "toy":
            return "model"
        return "cross" if self.target is not None else "self"

    @property
    def n_heads(self) -> int:
        """The number of heads computed: `heads`, or by default every named head (one head otherwise)."""
        if self.heads is not None:
            return self.heads
        if self.projection == "named" and self.mode in ("self", "cross"):
            return len(NAMED_HEADS[self.mode])
        return 1

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed (callers pass valid values; view fields, mostly)."""
        return self.model_copy(update=changes)

    def query_string(self, *, view: bool = True) -> str:
        """The canonical query string (view=False: only what is computed, without view state)."""
        return link_query(self, view=view)

    def share_path(self, base: str = "/") -> str:
        query = self.query_string()
        return f"{base}?{query}" if query else base

    def share_path_and_query(self) -> tuple[str, str]:
        """share_path() and query_string(view=False) from one reading of the fields (a view's answer has both):
        the canonical order writes what is computed first, so the share link is that query, then the view state."""
        pairs = link_pairs(self)
        computed = encode_pairs([pair for pair in pairs if not SPECS[pair[0]].view])
        query = "&".join(part for part in (computed, encode_pairs([p for p in pairs if SPECS[p[0]].view])) if part)
        return (f"/?{query}" if query else "/"), computed

    # ---- rules between fields ---------------------------------------------------------------

    @model_validator(mode="after")
    def _rules(self) -> State:
        mode = self.mode
        if mode == "exercise":
            check_exercise(self)
        elif self.model != "toy" and self.q is None and (self.query_labels or self.key_labels):
            raise error("exercise_without_q", field="query_labels")
        check_modes(self, mode)
        n_queries, n_heads = check_sizes(self, mode)
        if self.head is not None and self.head >= n_heads:
            raise error("head_range", field="head", count=n_heads)
        return self.clamped(n_queries)

    def clamped(self, n_queries: int | None) -> State:
        """A link to step 9 of a shorter sentence opens its last step (None: not known without the model;
        app/view/compute.py clamps it once the model has read the sentence)."""
        if n_queries is not None and self.step >= n_queries:
            return self.replace(step=n_queries - 1)
        return self


# ---------------------------------------------------------------------------
# A comparison: two views side by side
# ---------------------------------------------------------------------------

PANES = ("a", "b")
MAX_FOCUS = 40  # characters of the focus word


def strip_blank(value: Any) -> Any:
    """The focus word as typed: spaces around it dropped; nothing left means 'not set'."""
    return blank_is_none(value.strip() if isinstance(value, str) else value)


FocusWord = Annotated[str, AfterValidator(lambda text: check_text(text, MAX_FOCUS))]


class Comparison(BaseModel):
    """Every parameter of a comparison (/compare): two full views, panes ``a`` and ``b``, and the
    comparison's own view state. In a link each pane's parameters carry the pane's name as a prefix
    (``a.source=...&b.temperature=3``), written in the State's canonical order; then the comparison's own."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    a: Annotated[State, Control("none")] = Field(
        default_factory=State, description="Pane A: every parameter of a view, each with the prefix `a.`."
    )
    b: Annotated[State, Control("none")] = Field(
        default_factory=State, description="Pane B: every parameter of a view, each with the prefix `b.`."
    )
    focus: Annotated[FocusWord | None, BeforeValidator(strip_blank), Control("none", view=True)] = Field(
        None,
        description="The word compared, one both panes' queries contain (absent: the first content word they share; "
        f"at most {MAX_FOCUS} characters). Both panes step to it.",
    )
    pane: Annotated[Literal["a", "b"], Control("none", view=True)] = Field(
        "a", description="View state: the pane in focus (Tab moves to the other)."
    )
    lang: Annotated[Literal["en", "zh"] | None, Control("none", view=True)] = Field(
        None, description="View state: page language (absent: the browser's Accept-Language)."
    )
    present: Annotated[bool, Control("none", view=True)] = Field(
        False, description="View state: presentation mode for projecting in a classroom."
    )

    def panes(self) -> dict[str, State]:
        return {name: getattr(self, name) for name in PANES}

    def replace(self, **changes: Any) -> Comparison:
        """A copy with some fields changed (callers pass valid values)."""
        return self.model_copy(update=changes)

    def query_string(self) -> str:
        """The canonical query string: pane a's parameters, pane b's, then the comparison's own."""
        return link_query(self)

    def share_path(self, base: str = "/compare") -> str:
        query = self.query_string()
        return f"{base}?{query}" if query else base


# ---------------------------------------------------------------------------
# Writing a link
# ---------------------------------------------------------------------------


def link_pairs(values: BaseModel, *, view: bool = True, prefix: str = "") -> list[tuple[str, str]]:
    """(name, text) of every parameter that differs from its default, in the canonical order; a pane's
    parameters (a State inside a Comparison) with the pane's prefix. view=False leaves out view state."""
    pairs = []
    for spec in link_order(type(values)):
        value = getattr(values, spec.name)
        if isinstance(value, BaseModel):
            pairs += link_pairs(value, view=view, prefix=f"{prefix}{spec.name}.")
        elif value != spec.default and (view or not spec.view):
            pairs.append((prefix + spec.name, link_text(value)))
    return pairs


def link_query(values: BaseModel, *, view: bool = True) -> str:
    """The canonical link's query string: one view (or one comparison), one URL."""
    return encode_pairs(link_pairs(values, view=view))


def encode_pairs(pairs: list[tuple[str, str]]) -> str:
    """(name, text) pairs percent-encoded as the canonical link writes them."""
    return urlencode(pairs, quote_via=quote_plus, safe=",;:")


def link_text(value: Any) -> str:
    """A value as the canonical link writes it (before percent-encoding)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return ";".join(",".join(format_number(x) for x in row) for row in value)
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def format_number(x: float) -> str:
    """Shortest text that reads back as the same float: 1.0 -> '1', 0.25 -> '0.25', 1e-07 -> '1e-07'."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def check_modes(state: State, mode: str) -> None:
    """Each parameter keeps its default where it does not apply; choices and requirements are honoured."""
    for spec in SPECS.values():
        value = getattr(state, spec.name)
        if value == spec.default and not spec.control.choice_requires:
            continue  # nothing to check: a default, which rules nothing out
        if spec.applies(mode):
            for other, allowed in spec.control.choice_requires.get(value, {}).items():
                if getattr(state, other) not in allowed:
                    # a default that another setting rules out: that setting is what a lenient reading drops
                    drop = [other] if value == spec.default else [spec.name]
                    raise error(
                        "choice_requires",
                        field=spec.name,
                        value=value,
                        other=other,
                        values=list(allowed),
                        drop=drop,
                    )
        if value == spec.default:
            continue
        if not spec.applies(mode):
            if spec.name == "model" and mode == "exercise":
                raise error("exercise_model", field="model")
            modes = [m for m in MODES if m in spec.control.modes]
            raise error("applies_to", field=spec.name, modes=modes)
        if spec.choices and value not in spec.choices_in(mode):
            raise error("choice_not_in_mode", field=spec.name, value=value, mode=mode)
        for other, allowed in spec.control.requires.items():
            if getattr(state, other) not in allowed:
                raise error(
                    "requires",
                    field=spec.name,
                    other=other,
                    values=list(allowed),
                )


def check_sizes(state: State, mode: str) -> tuple[int | None, int]:
    """Limits that depend on the sentences or the model's facts. Returns (number of queries, or None where only
    the model knows it, number of heads)."""
    if mode == "exercise":
        return len(state.q), 1
    if not state.source.strip():
        raise error("empty_sentence", field="source")
    if mode == "translate":
        return check_translation(state)
    if mode == "model":
        info = models.info(state.model)  # the model's facts, from a table: validation loads no model
        check_layer(state, info)
        return None, info.n_heads  # its word pieces: counted by its tokenizer, in app/view/compute.py
    n_source = count_words(state.source, "source")
    n_queries = count_words(state.target, "target") if mode == "cross" else n_source
    width = embedding_width(state)
    if state.projection != "named" and width % state.n_heads:
        raise error("heads_divide", field="heads", heads=state.n_heads, dim=width)
    if state.projection == "named":
        from app.engine.attention.named_heads import NAMED_HEADS

        available = len(NAMED_HEADS[mode])
        if state.n_heads > available:
            raise error(
                "named_heads_count",
                field="heads",
                mode=mode,
                count=available,
                limit=available,
            )
    return n_queries, state.n_heads


def check_layer(state: State, info: models.ModelInfo) -> None:
    """`layer` within the model's layers (a real model's or a translator's)."""
    if state.layer >= info.n_layers:
        raise error(
            "layer_range",
            field="layer",
            model=info.label,
            count=info.n_layers,
            last=info.n_layers - 1,
        )


def check_translation(state: State) -> tuple[int | None, int]:
    """A translator's limits: its number of words and layers. Returns (number of target words, heads); the
    number of words it produces is not known until it translates (app/view/compute.py)."""
    from app.engine.models.translator import MAX_TARGET_WORDS

    info = models.info(state.model)  # its facts, from a table: validation loads no model
    count = len(models.source_words(state.source))
    if count == 0:
        raise error("no_english_words", field="source")
    if count > info.max_pieces:
        raise error(
            "too_many_words",
            field="source",
            model=info.label,
            limit=info.max_pieces,
            count=count,
        )
    if state.target is not None and len(state.target.split()) > MAX_TARGET_WORDS:
        raise error(
            "too_many_target_words",
            field="target",
            limit=MAX_TARGET_WORDS,
            count=len(state.target.split()),
        )
    check_layer(state, info)
    return None, info.n_heads


def embedding_width(state: State) -> int:
    """Width of the word vectors: the lexicon's features or the hashed width, plus the position code."""
    from app.engine.text.embed import LEXICON_DIM, POSITION_DIM

    return (LEXICON_DIM if state.embedding == "lexicon" else state.dim) + (POSITION_DIM if state.positional else 0)


def count_words(text: str, field: str) -> int:
    from app.engine.text.tokenize import tokenize  # cached: compute needs the same tokens

    count = len(tokenize(text))
    if count > MAX_TOKENS:
        raise error("too_many_tokens", field=field, limit=MAX_TOKENS, count=count)
    return count


def check_exercise(state: State) -> None:
    """Shapes of hand-typed q, k, v and their names."""
    missing = [name for name in ("q", "k", "v") if getattr(state, name) is None]
    if missing:
        field = "q" if "q" in missing and (state.k or state.v) else missing[0]
        raise error("exercise_needs", field=field, missing=missing)
    if len(state.q[0]) != len(state.k[0]):
        raise error(
            "key_columns",
            field="k",
            expected=len(state.q[0]),
            count=len(state.k[0]),
        )
    if len(state.k) != len(state.v):
        raise error("value_rows", field="v", expected=len(state.k), count=len(state.v))
    if state.causal and len(state.q) != len(state.k):
        raise error("causal_square", field="causal")
    for name, rows in (("query_labels", state.q), ("key_labels", state.k)):
        labels = getattr(state, name)
        if labels is not None and len(labels) != len(rows):
            raise error("label_count", field=name, expected=len(rows), count=len(labels))


@functools.cache
def link_order(model: type[BaseModel]) -> tuple[ParamSpec, ...]:
    """The canonical link's order: what is computed, in declaration order, then the view state."""
    return tuple(sorted(read_specs(model), key=lambda spec: spec.view))  # sorted() is stable


SPECS: dict[str, ParamSpec] = {spec.name: spec for spec in read_specs(State)}
LINK_ORDER: tuple[ParamSpec, ...] = link_order(State)
COMPARE_SPECS: dict[str, ParamSpec] = {spec.name: spec for spec in read_specs(Comparison)}
VIEW_FIELDS = tuple(spec.name for spec in LINK_ORDER if spec.view)


def state_from_link_values(values: dict[str, str]) -> State:
    """The State of a link's values as text (matrices as '1,0;0,1', names comma-separated)."""
    return State.model_validate(values, context={"link": True})


@functools.lru_cache(maxsize=256)
def cached_state(items: tuple[tuple[str, str], ...]) -> State:
    """The State of a link's (name, value) pairs; a class opening one link validates it once."""
    return state_from_link_values(dict(items))
