"""static/js/live.js in Chromium: a teacher's context starts a room and publishes, a student's context follows.

The module is imported into an ordinary page (as the page's own module will import it), under the
app's strict CSP. This tests the module itself; following inside the page's own views is the page's test.
"""

from app.web.assets import asset_url
from app.web.live import canonical_view
from tests.browser.harness import open_view, page_data, poll

VIEWS = [  # what the teacher's page would send as it steps, changes stage and presents
    "source=tom+chases+jerry&step=1",
    "source=tom+chases+jerry&step=2",
    "source=tom+chases+jerry&step=2&stage=2",
    "source=tom+chases+jerry&step=2&stage=2&present=true",
]

START_TEACHER = """async ([module, view, roomsUrl]) => {
  const live = await import(module);
  window.__teacherStatus = [];
  window.__teacherErrors = [];
  const room = await live.startRoom(view, roomsUrl);
  live.saveRoom(room);
  window.__teacher = new live.Teacher(live.loadRoom(), {
    onStatus: (status) => window.__teacherStatus.push(status),
    onError: (message) => window.__teacherErrors.push(message),
  });
  return room;
}"""

FOLLOW = """async ([module, room]) => {
  const live = await import(module);
  window.__views = [];
  window.__status = [];
  window.__follower = live.follow(room, {
    onView: (view, version) => window.__views.push([view, version]),
    onStatus: (status) => window.__status.push(status),
  });
}"""


def test_a_teacher_publishes_and_a_student_follows(tabs, fresh_context, app_server, watch):
    module = asset_url("js/live.js")
    teacher = tabs().new_page()
    open_view(teacher)
    puts = []
    teacher.on("request", lambda request: puts.append(request) if request.method == "PUT" else None)
    room = teacher.evaluate(
        START_TEACHER, [module, VIEWS[0], page_data(teacher).get("paths", {}).get("rooms", "/api/rooms")]
    )
    assert (
        room["view"] == VIEWS[0] and room["secret"] and room["followLink"] == f"{app_server.base}/live/{room['code']}"
    )
    assert teacher.evaluate("JSON.parse(sessionStorage.getItem('attention-lens:live-room')).code") == room["code"]

    student = fresh_context().new_page()  # another browser
    response = student.goto(room["followUrl"])
    assert response.status == 200
    follow = page_data(student)["follow"]
    student.evaluate(FOLLOW, [module, follow])
    poll(student, "window.__views", lambda views: views == [[VIEWS[0], 1]])
    assert poll(student, "window.__status", lambda status: status == ["live"])

    # Four views at once: the first PUT goes out, the two in between are overtaken, the last one wins.
    teacher.evaluate("(views) => views.forEach((view) => window.__teacher.publish(view))", VIEWS[1:] + [VIEWS[3]])
    views = poll(student, "window.__views", lambda views: views[-1][0] == VIEWS[3])
    versions = [version for _, version in views]
    assert versions == sorted(set(versions)), "each version once, in order"
    assert poll(teacher, "window.__teacher.busy", lambda busy: busy is False) is False
    assert len(puts) == 2, [request.post_data for request in puts]  # VIEWS[1] in flight, then only VIEWS[3]
    for request in puts:
        assert request.headers["authorization"] == f"Bearer {room['secret']}"
    assert all(room["secret"] not in url for url in watch.requests), "the secret is never in a URL"

    # A view the server refuses: onError gets the usual message, the room keeps its view.
    teacher.evaluate("() => window.__teacher.publish('source=tom+chases+jerry&temperature=99')")
    errors = poll(teacher, "window.__teacherErrors", bool)
    assert errors == ["temperature: must be at most 20"]
    watch.allow(r"status of 422")
    assert canonical_view(VIEWS[3]) == student.evaluate("window.__views.at(-1)[0]")
    student.evaluate("() => window.__follower.close()")


def test_following_a_room_that_does_not_exist_ends(page, watch):
    watch.allow(r"404|EventSource")
    open_view(page)
    missing = {"code": "222222", "follow_url": "/live/222222", "room_url": "/api/rooms/222222",
               "events_url": "/api/rooms/222222/events", "qr_url": "/api/rooms/222222/qr.svg"}  # fmt: skip
    page.evaluate(FOLLOW, [asset_url("js/live.js"), missing])
    assert poll(page, "window.__status", lambda status: status and status[-1] == "ended")[-1] == "ended"
    assert page.evaluate("window.__follower.status") == "ended" and page.evaluate("window.__views") == []
