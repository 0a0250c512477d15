"""Browser tests: the session's one app server (tests/conftest.py's live_server, in this process) and one
Chromium per session. A test opens new tabs (`page`, `tabs(**options).new_page()`) in the session's
context for those options (ContextPool: the page's scripts are compiled once, not once per test), or a new
context of its own (`fresh_context`) when the context itself is what it tests or changes.

Every context is watched: console errors, uncaught page errors, JavaScript dialogs and any request to a
host other than the app's own fail the test at teardown (and no such request reaches the network: Chromium
sends them to a proxy that is not there, harness.CHROMIUM_ARGS). `window.__xss = 0` is installed in every
page; script-like input flips it.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.harness import AXE_JS, CHROMIUM, HERE, WAIT_MS, launch_chromium

expect.set_options(timeout=WAIT_MS)  # not Playwright's 5 s: a hang guard, as every other wait here

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
    """This test's Watch; at teardown, after every page the test opened is closed, anything it saw fails the test."""
    watch = Watch(app_server.host)
    yield watch
    if problems := watch.problems():
        pytest.fail("; ".join(problems), pytrace=False)


DEFAULT_VIEWPORT = {"width": 1400, "height": 900}


def open_context(browser, app_server, **options):
    """A BrowserContext on the app (base_url set), 1400x900, English unless Accept-Language is given."""
    options.setdefault("base_url", app_server.base)
    options.setdefault("viewport", DEFAULT_VIEWPORT)
    headers = {name.lower() for name in options.get("extra_http_headers", {})}
    if "accept-language" not in headers:  # Chromium's locale would override the header
        options.setdefault("locale", "en-US")
    context = browser.new_context(**options)
    context.set_default_timeout(WAIT_MS)
    context.add_init_script("window.__xss = 0;")
    return context


class Relay:
    """Hands the events of a context that outlives one test to the Watch of the test running now."""

    def __init__(self, host):
        self.idle = Watch(host)  # between tests: nothing is open; a stray event is ignored, a dialog dismissed
        self.watch = self.idle

    def attach(self, context):
        self.idle.attach(context, lambda: self.watch)


class ContextPool:
    """The session's browser contexts, one per set of options other than the viewport (locale, headers, touch,
    permissions), each keeping one tab of the app open between tests.

    Why: opening the page costs its renderer about a second of CPU, most of it compiling and starting Plotly's
    bundle. A new context starts a new renderer process every time; in a context that stays open, with
    Chromium's --process-per-site (harness.CHROMIUM_ARGS), every new tab of the app joins the one renderer the
    kept tab holds, whose V8 already compiled the bundle. A test still gets new tabs of its own (a fresh
    document, sessionStorage and history) at its own viewport; the app keeps no cookies or local storage.
    """

    def __init__(self, browser, app_server):
        self.browser, self.app_server = browser, app_server
        self.contexts = {}  # options as JSON -> (context, relay, kept tab)

    def get(self, options):
        key = json.dumps(options, sort_keys=True)
        if key not in self.contexts:
            context = open_context(self.browser, self.app_server, **options)
            relay = Relay(self.app_server.host)
            relay.attach(context)
            kept = context.new_page()
            kept.goto("/healthz")  # a document of the app's site: the renderer the context's tabs share
            self.contexts[key] = (context, relay, kept)
        return self.contexts[key]

    def close(self):
        for context, _, _ in self.contexts.values():
            context.close()


@pytest.fixture(scope="session")
def context_pool(browser, app_server):
    pool = ContextPool(browser, app_server)
    yield pool
    pool.close()


class Tabs:
    """What `tabs(**options)` returns: new tabs of a pooled context, each at the test's viewport.
    Only tabs: a test that changes the context itself (init scripts, routes) uses `fresh_context`."""

    def __init__(self, context, viewport):
        self.context, self.viewport = context, viewport

    def new_page(self):
        page = self.context.new_page()
        page.set_viewport_size(self.viewport)
        return page


@pytest.fixture
def tabs(context_pool, watch):
    """tabs(**options) -> Tabs: new_page() opens a watched tab with those options (viewport, locale,
    extra_http_headers, is_mobile, ...) in the session's context for them; every tab the test opened there is
    closed after the test."""
    used = []

    def make(**options):
        viewport = options.pop("viewport", DEFAULT_VIEWPORT)
        context, relay, kept = context_pool.get(options)
        relay.watch = watch
        used.append((context, relay, kept))
        return Tabs(context, viewport)

    yield make
    for context, relay, kept in used:
        for tab in context.pages:
            if tab != kept:
                tab.close()
        relay.watch = relay.idle


@pytest.fixture
def fresh_context(browser, app_server, watch):
    """fresh_context(**options) -> a new, watched BrowserContext with base_url set (nothing shared with any other
    test: a student's browser, init scripts, a clean HTTP cache); closed after the test."""
    contexts = []

    def make(**options):
        context = open_context(browser, app_server, **options)
        watch.attach(context)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(tabs):
    """A new tab of the app at 1400x900, English (the session's default context)."""
    return tabs().new_page()


@pytest.fixture(scope="session")
def axe_source():
    """axe-core from tests/browser/node_modules (npm ci from the committed package-lock.json if missing)."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed once to install axe-core for the accessibility tests (apt-get install -y npm)"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    return AXE_JS.read_text(encoding="utf-8")
