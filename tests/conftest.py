"""Shared fixtures of the non-browser tests (tests/browser/ has its own conftest)."""

import pytest


@pytest.fixture(scope="session")
def client():
    """One in-process client of the app for the whole run; server errors become 500 responses."""
    from fastapi.testclient import TestClient

    from app.main import app

    return TestClient(app, raise_server_exceptions=False)
