"""The app's checks at import raise, not assert: `python -O` drops every assert, and would drop the check with it.
(pyproject.toml's ruff rule S101 refuses a bare assert in app/; scripts/test runs ruff.)"""

import subprocess
import sys
from pathlib import Path

import pytest

from app.view.i18n import STRINGS, check_same_words
from app.view.messages import TEMPLATES

ROOT = Path(__file__).resolve().parent.parent


def test_the_word_tables_name_the_same_words_in_both_languages():
    check_same_words("STRINGS", STRINGS)
    check_same_words("TEMPLATES", TEMPLATES)


@pytest.mark.parametrize("lacking", ["en", "zh"])
def test_a_word_one_language_lacks_is_named(lacking):
    table = {lang: dict(words) for lang, words in STRINGS.items()}
    del table[lacking]["title"]
    with pytest.raises(ValueError, match=rf"STRINGS: words missing, by language: {{'{lacking}': \['title'\]}}"):
        check_same_words("STRINGS", table)


CHILD = """
import sys
from app.engine.models import q4  # its block size is checked at import
from app.view import i18n, messages  # their tables are checked at import
if __debug__:
    sys.exit("not run with -O")
try:
    i18n.check_same_words("broken", {"en": {"title": "Attention Lens"}, "zh": {}})
except ValueError as error:
    print(error)
else:
    sys.exit("the check did not fire")
"""


@pytest.mark.slow
def test_the_check_still_fires_under_python_O():
    child = subprocess.run([sys.executable, "-O", "-c", CHILD], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "broken: words missing, by language: {'zh': ['title']}"
