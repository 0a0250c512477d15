"""schemathesis against the app's own /openapi.json, in process (ASGI), bounded.

Every operation the schema lists gets valid and invalid generated requests (at most
MAX_EXAMPLES each per generation phase, no deadline); each response must not be a server
error, must use a status code the schema declares for that operation, and must match the
schema of that status code. A failure prints the request as a curl command and the response.

Marked slow: about a minute of generated requests, and schemathesis builds its boundary cases while pytest
collects this module (tests/conftest.py leaves a wholly slow module uncollected when -m leaves slow out).
"""

import threading
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[1]

MAX_EXAMPLES = 25
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]

pytestmark = pytest.mark.slow  # thousands of generated requests

# Thousands of generated requests: no access log, to keep the test output readable.
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(Settings(access_log=False)))
schema.config.generation.update(max_examples=MAX_EXAMPLES, deterministic=True)

# Loading the schema started the app (its lifespan), which computes the lessons in a background thread.
# schemathesis builds its cases right after, and hypothesis parses a 200 KB schemathesis module with
# ast.parse to name a lambda; CPython 3.11 counts AST depth in one counter per interpreter, so two threads
# converting ASTs at once fail as "SystemError: AST constructor recursion depth mismatch" (it did, when
# this module was collected early). The cases are built once that thread is done.
for thread in threading.enumerate():
    if thread.name == "prepare-lessons":
        thread.join()


def test_schema_lists_the_api():
    """The fuzzing below covers what it should: the JSON API and the health check."""
    operations = {(op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations()}
    assert {("GET", "/api/attention"), ("POST", "/api/attention"), ("GET", "/healthz")} <= operations


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case):
    case.call_and_validate(checks=CHECKS)
