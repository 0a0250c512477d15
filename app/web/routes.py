"""Every URL path of the app, in one place. Routes, middleware, templates and the page's scripts
(through the page data) read them from here."""

PAGE = "/"  # the interactive view; its query string is the view's whole state
EMBED = "/embed"  # the same view without controls, for slides and course pages (may be framed)
COMPARE = "/compare"  # two views side by side, the same word in both
LEARN = "/learn"  # the ideas of attention, each linked to a view that shows it
API_ATTENTION = "/api/attention"  # the JSON twin of PAGE and EMBED: same query string
API_COMPARE = "/api/compare"  # the JSON twin of COMPARE: same query string
API_ARITHMETIC = "/api/arithmetic"  # the arithmetic panel of the current step alone: same query string
HEALTHZ = "/healthz"  # liveness
ASSETS = "/assets"  # static files under content-hashed URLs: /assets/<digest>/<path>
DOCS = "/docs"  # OpenAPI (Swagger UI), served locally
REDOC = "/redoc"

VIEW_PAGES = (PAGE, EMBED)  # pages that render one view from the query string
CACHEABLE = (PAGE, EMBED, COMPARE, API_ATTENTION, API_ARITHMETIC, API_COMPARE)  # deterministic GET answers (the response cache keeps them)
FRAMEABLE = (EMBED,)  # may be shown in another site's frame


def public_paths() -> dict[str, str]:
    """The paths the page's scripts need, embedded in the page data."""
    return {
        "page": PAGE,
        "embed": EMBED,
        "learn": LEARN,
        "api_attention": API_ATTENTION,
        "api_arithmetic": API_ARITHMETIC,
    }
