"""Every URL path of the app, in one place. Routes, middleware, templates and the page's scripts
(through the page data) read them from here."""

PAGE = "/"  # the interactive view; its query string is the view's whole state
EMBED = "/embed"  # the same view without controls, for slides and course pages (may be framed)
COMPARE = "/compare"  # two views side by side, the same word in both
LEARN = "/learn"  # the ideas of attention, each linked to a view that shows it
API_ATTENTION = "/api/attention"  # the JSON twin of PAGE and EMBED: same query string
API_COMPARE = "/api/compare"  # the JSON twin of COMPARE: same query string
API_ARITHMETIC = "/api/arithmetic"  # the arithmetic panel of the current step alone: same query string
API_FIXED = "/api/fixed/{digest}"  # what every sentence at some settings shares (app/view/fixed.py), immutable
HEALTHZ = "/healthz"  # liveness
ASSETS = "/assets"  # static files under content-hashed URLs: /assets/<digest>/<path>
DOCS = "/docs"  # OpenAPI (Swagger UI), served locally
REDOC = "/redoc"
# Live classes (app/web/live.py): a teacher's page drives a room, students' pages follow it.
ROOMS = "/api/rooms"  # POST: start a room
ROOM = "/api/rooms/{code}"  # GET: the room's latest view; PUT (teacher, Bearer secret): a new view
ROOM_EVENTS = "/api/rooms/{code}/events"  # GET: Server-Sent Events, one per change of view
ROOM_QR = "/api/rooms/{code}/qr.svg"  # GET: a QR code of the absolute follow link
LIVE = "/live/{code}"  # the page in follow mode

VIEW_PAGES = (PAGE, EMBED)  # pages that render one view from the query string
# deterministic GET answers (the response cache keeps them)
CACHEABLE = (PAGE, EMBED, COMPARE, API_ATTENTION, API_ARITHMETIC, API_COMPARE)
FRAMEABLE = (EMBED,)  # may be shown in another site's frame


def public_paths() -> dict[str, str]:
    """The paths the page's scripts need, embedded in the page data."""
    return {
        "page": PAGE,
        "embed": EMBED,
        "compare": COMPARE,
        "learn": LEARN,
        "api_attention": API_ATTENTION,
        "api_arithmetic": API_ARITHMETIC,
        "api_compare": API_COMPARE,
        "rooms": ROOMS,
    }


def room_links(code: str) -> dict[str, str]:
    """Every path of one room, for the API's answers and the page data of follow mode."""
    return {
        "code": code,
        "follow_url": LIVE.format(code=code),
        "room_url": ROOM.format(code=code),
        "events_url": ROOM_EVENTS.format(code=code),
        "qr_url": ROOM_QR.format(code=code),
    }
