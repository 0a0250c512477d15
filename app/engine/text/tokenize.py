"""Split a sentence into tokens, keeping the original spelling for display.

English: words (letters, digits, apostrophes, inner hyphens) and single punctuation marks.
Chinese: a run of Chinese characters is segmented into words with jieba, taught the lexicon's
words so they stay whole (小猫, 河边); a word jieba returns that the lexicon lacks is cut into
lexicon words where grammar joins them (我爱你 -> 我/爱/你, but 东西 stays whole). If the user
already put spaces between Chinese words ("汤姆 追逐 杰瑞"), the user's spaces are kept.
Mixed sentences work: each run is handled by its own rule.
"""

import functools
import itertools
import logging
import marshal
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jieba  # imported by chinese_segmenter, on the first Chinese sentence: 0.14 s of every start otherwise

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{CJK}]+|[^\W_]+(?:['’\-][^\W_]+)*|\S", re.UNICODE)
_SPACED_CHINESE = re.compile(rf"[{CJK}]\s+[{CJK}]")
_CHINESE_RUN = re.compile(rf"[{CJK}]+")
_WORD = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class Token:
    text: str  # as the user wrote it, shown on the axes
    key: str  # lookup form: lower-case

    @property
    def is_word(self) -> bool:
        return bool(_WORD.match(self.text))


_segmenter = None
_segmenter_lock = threading.Lock()

LEXICON_WORD_FREQ = 100_000  # about as frequent as 我们 in jieba's dictionary: a lexicon word beats its characters
RARE_PHRASE_FREQ = 10  # a jieba dictionary entry rarer than this is a phrase (我爱你: 3, 打篮球: 3), not a word
# Where Chinese grammar joins two words inside what jieba returns as one: after a number, a measure word, a
# pronoun or a little word such as 很, 最, 不, 把 (一|只, 本|书, 我|爱, 很|大, 把|门); before a particle, a place
# word, a direction or an object pronoun (看|着, 家|里, 坐|在, 出|来, 爱|你).
# Measure words that also start words of their own (个人, 只要, 条件, 部门) are left out of JOINS_NEXT: after a
# number they are cut off anyway (一|个).
JOINS_NEXT = frozenset(
    "一二两三四五六七八九十百千万几半第"  # numbers
    "这那每各哪我你他她它您"  # demonstratives, pronouns
    "很最更太不没也都还再就又真是好有小大把被"  # adverbs and other little words
    "本张件位辆块种座匹杯双片"  # measure words
)
JOINS_PREVIOUS = frozenset(
    "的了着过地得们吗呢吧啊"  # particles
    "上下里外中边前后"  # place words
    "在到给来去出进回起"  # coverbs and directions
    "你我他她它"  # object pronouns
)


class WholeFileMarshal:
    """The marshal module as jieba uses it (its dictionary's cache file, a 9 MB dict of 500,000 prefixes), but
    loading the file's bytes in one piece: marshal.load(file) reads the file object a few bytes at a time, 1.4 s of
    CPU at each process's first Chinese sentence; marshal.loads of the same bytes makes the same dict in 0.3 s."""

    dump = staticmethod(marshal.dump)

    @staticmethod
    def load(file):
        return marshal.loads(file.read())


def chinese_segmenter() -> "jieba.Tokenizer":
    """One jieba tokenizer per process, taught the lexicon's Chinese words so they stay whole.

    Each lexicon word gets at least LEXICON_WORD_FREQ, and keeps jieba's own frequency when that is higher,
    so jieba's sense of which words are common (他, 说, 会) is not flattened: 他说明天 stays 他/说/明天.
    """
    global _segmenter
    with _segmenter_lock:
        if _segmenter is None:
            import jieba

            from app.engine.text.lexicon import load_lexicon

            jieba.setLogLevel(logging.WARNING)
            jieba.marshal = WholeFileMarshal
            segmenter = jieba.Tokenizer()
            segmenter.initialize()
            for word in sorted(load_lexicon().chinese_words):
                segmenter.add_word(word, freq=max(segmenter.FREQ.get(word) or 0, LEXICON_WORD_FREQ))
            _segmenter = segmenter
    return _segmenter


def grammatical_join(left: str, right: str) -> bool:
    """Whether two lexicon words are joined by grammar (很|大, 看|着, 长|长), rather than being one word (东|西)."""
    return left[0] in JOINS_NEXT or right[0] in JOINS_PREVIOUS or left == right


def lexicon_split(word: str) -> list[str]:
    """A jieba word the lexicon lacks, cut into lexicon words (我爱你 -> 我/爱/你); else the word.

    Dynamic programming over the characters finds the fewest lexicon words that spell it. The cut is used when
    jieba knows the word only as a rare phrase (or not at all), or when every cut is a grammatical join;
    otherwise the word is a word of its own and stays whole: 东西 (thing) is not 东 (east) + 西 (west).
    """
    from app.engine.text.lexicon import load_lexicon

    known = load_lexicon().chinese_words
    if word in known:
        return [word]
    best = [None] * (len(word) + 1)  # best[i]: fewest lexicon words spelling word[:i]
    best[0] = []
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 6), end):
            if best[start] is not None and word[start:end] in known:
                candidate = best[start] + [word[start:end]]
                if best[end] is None or len(candidate) < len(best[end]):
                    best[end] = candidate
    pieces = best[-1]
    if not pieces:
        return [word]
    is_phrase = (chinese_segmenter().FREQ.get(word) or 0) < RARE_PHRASE_FREQ
    if is_phrase or all(grammatical_join(left, right) for left, right in itertools.pairwise(pieces)):
        return pieces
    return [word]


def word_spans(text: str, split_by_lexicon: bool = True) -> list[tuple[int, int]]:
    """Character spans (start, end) of the words of a sentence, in order, by the rules above.

    ``split_by_lexicon``: also split a jieba word the lexicon can spell from its own words (the toy
    engine's vectors need that); the real models' word view keeps jieba's words whole.
    """
    keep_user_spaces = bool(_SPACED_CHINESE.search(text))
    spans = []
    for match in _TOKEN.finditer(text):
        piece, start = match.group(), match.start()
        if _CHINESE_RUN.fullmatch(piece) and not keep_user_spaces and len(piece) > 1:
            for word in chinese_segmenter().cut(piece, HMM=True):
                for part in lexicon_split(word) if split_by_lexicon else [word]:
                    spans.append((start, start + len(part)))
                    start += len(part)
        else:
            spans.append((start, match.end()))
    return spans


@functools.lru_cache(maxsize=512)
def tokenize(text: str) -> tuple[Token, ...]:
    """The tokens of a sentence, in order (a tuple: cached, since validation counts them and compute uses them)."""
    return tuple(Token(text[start:end], text[start:end].lower()) for start, end in word_spans(text))
