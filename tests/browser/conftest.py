"""Browser tests: the session's one app server (tests/conftest.py's live_server, in this process) and one
Chromium per session, a fresh browser context per test (`page`, `new_context`), or a fresh page in the
module's one context for tests that only open views (`shared_page`).

Every context is watched: console errors, uncaught page errors, JavaScript dialogs and any request to a
host other than the app's own fail the test at teardown (requests elsewhere are also aborted, so no test
ever reaches the network). `window.__xss = 0` is installed in every page; script-like input flips it.
"""

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.harness import AXE_JS, CHROMIUM, HERE, launch_chromium

# The favicon 404 is checked on its own by test_console.py::test_no_console_errors_on_main_views;
# here it is left out so that one missing icon does not turn every other test into an error.
CHECKED_ELSEWHERE = [re.compile(r"status of 404 .*favicon\.ico|favicon\.ico.*404")]


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).resolve().parent == HERE:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def app_server(live_server):
    """The name the browser tests know the session's live server by."""
    return live_server


@pytest.fixture(scope="session")
def browser():
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install -y chromium fonts-wqy-zenhei"
    playwright = sync_playwright().start()
    chromium = launch_chromium(playwright)
    yield chromium
    chromium.close()
    playwright.stop()


class Watch:
    """What a test's pages did that they should not: console errors, page errors, dialogs, foreign requests."""

    def __init__(self, host):
        self.host = host
        self.console_errors = []
        self.page_errors = []
        self.dialogs = []
        self.foreign = []
        self.requests = []
        self.allowed = list(CHECKED_ELSEWHERE)

    def allow(self, pattern):
        """Console errors matching `pattern` are expected in this test (e.g. the 422 of a bad edit)."""
        self.allowed.append(re.compile(pattern))

    def is_local(self, url):
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.scheme in ("http", "https", "ws", "wss") and parts.netloc == self.host

    def on_console(self, message):
        if message.type == "error":
            location = message.location or {}
            self.console_errors.append(f"{message.text} (at {location.get('url', '?')})")

    def on_request(self, request):
        self.requests.append(request.url)
        if not self.is_local(request.url):
            self.foreign.append(request.url)

    def on_dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def attach(self, context, current=None):
        """Watch the context's events; `current()`, if given, is the Watch they go to at the time (a context
        that outlives one test hands them to the test running now: Relay)."""
        watch = current or (lambda: self)
        context.on("console", lambda message: watch().on_console(message))
        context.on("weberror", lambda error: watch().page_errors.append(str(error.error)))
        context.on("dialog", lambda dialog: watch().on_dialog(dialog))
        context.on("request", lambda request: watch().on_request(request))
        context.route(lambda url: not self.is_local(url), lambda route: watch().abort_foreign(route))

    def abort_foreign(self, route):
        if route.request.url not in self.foreign:
            self.foreign.append(route.request.url)
        route.abort()

    def unexpected_console_errors(self):
        return [text for text in self.console_errors if not any(p.search(text) for p in self.allowed)]

    def problems(self):
        found = []
        if errors := self.unexpected_console_errors():
            found.append(f"console errors: {errors}")
        if self.page_errors:
            found.append(f"uncaught page errors: {self.page_errors}")
        if self.dialogs:
            found.append(f"JavaScript dialogs opened: {self.dialogs}")
        if self.foreign:
            found.append(f"requests to other hosts: {self.foreign}")
        return found


@pytest.fixture
def watch(app_server):
    return Watch(app_server.host)


def open_context(browser, app_server, **options):
    """A BrowserContext on the app (base_url set), 1400x900, English unless Accept-Language is given."""
    options.setdefault("base_url", app_server.base)
    options.setdefault("viewport", {"width": 1400, "height": 900})
    headers = {name.lower() for name in options.get("extra_http_headers", {})}
    if "accept-language" not in headers:  # Chromium's locale would override the header
        options.setdefault("locale", "en-US")
    context = browser.new_context(**options)
    context.set_default_timeout(20_000)
    context.add_init_script("window.__xss = 0;")
    return context


@pytest.fixture
def new_context(browser, app_server, watch):
    """new_context(**options) -> a watched BrowserContext with base_url set; closed after the test."""
    contexts = []

    def make(**options):
        context = open_context(browser, app_server, **options)
        watch.attach(context)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    if problems := watch.problems():
        pytest.fail("; ".join(problems), pytrace=False)


@pytest.fixture
def page(new_context):
    return new_context().new_page()


class Relay:
    """Hands the events of a context that outlives one test to the Watch of the test running now."""

    def __init__(self, host):
        self.idle = Watch(host)  # between tests: nothing is open; a stray event is ignored, a dialog dismissed
        self.watch = self.idle

    def attach(self, context):
        self.idle.attach(context, lambda: self.watch)


@pytest.fixture(scope="module")
def module_context(browser, app_server):
    """One context for a module's tests that only open views and read them (no cookies, permissions or
    storage of their own; the app keeps none): after the first test, the page's scripts (Plotly's bundle
    among them) come from this context's HTTP cache instead of being fetched and compiled again."""
    context = open_context(browser, app_server)
    relay = Relay(app_server.host)
    relay.attach(context)
    yield context, relay
    context.close()


@pytest.fixture
def shared_page(module_context, new_context, watch):
    """A fresh page in the module's one context (module_context), watched like `page`: new_context's
    teardown fails the test on console errors, page errors, dialogs or foreign requests."""
    context, relay = module_context
    relay.watch = watch
    yield context.new_page()
    for open_page in context.pages:
        open_page.close()
    relay.watch = relay.idle


@pytest.fixture(scope="session")
def axe_source():
    """axe-core from tests/browser/node_modules (npm ci from the committed package-lock.json if missing)."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed once to install axe-core for the accessibility tests (apt-get install -y npm)"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    return AXE_JS.read_text(encoding="utf-8")
