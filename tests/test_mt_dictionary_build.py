"""tools/translator/dictionary.py writes the committed dictionary byte for byte, in any process: built twice, in two
Python processes with different hash seeds (a set's order changes with the seed), from wordfreq, CC-CEDICT and
lemminflect (requirements-dev.txt). Slow: each build reads CC-CEDICT's 120,000 entries (about 20 s)."""

import pytest

from app.engine.models.mt_dictionary import DIRECTORY, PLURALS_FILE, WIDE_DIRECTORY
from tests.support.rebuild import rebuilt_in_two_processes

pytestmark = pytest.mark.slow


def test_the_dictionary_is_rebuilt_byte_for_byte(tmp_path):
    for out in rebuilt_in_two_processes("tools.translator.dictionary", tmp_path):
        seed = out.name
        for part in (DIRECTORY, WIDE_DIRECTORY):  # the core and the wide part
            written = out / part.relative_to(DIRECTORY)
            for name in ("dictionary.tsv", "forms.tsv", "phrasal.tsv"):
                assert (written / name).read_bytes() == (part / name).read_bytes(), (seed, part.name, name)
        plurals = DIRECTORY / PLURALS_FILE  # the core's folder only: the plurals of both parts' nouns
        assert (out / PLURALS_FILE).read_bytes() == plurals.read_bytes(), (seed, PLURALS_FILE)
