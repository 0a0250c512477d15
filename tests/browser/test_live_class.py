"""A live class in two browser contexts: the teacher starts a room and steps; the student's page follows."""

from playwright.sync_api import expect

from tests.browser.harness import open_view, poll, record_live_views, wait_ready


def test_the_student_follows_the_teacher_and_can_stop_following(tabs, fresh_context):
    teacher = tabs().new_page()
    open_view(teacher, {"source": "walk by river bank"})
    teacher.locator("#live-start").click()
    expect(teacher.locator("#live-panel")).to_be_visible()
    code = teacher.locator("#live-code").inner_text()
    assert len(code) == 8
    link = teacher.locator("#live-link").get_attribute("href")
    assert link.endswith(f"/live/{code}?lang=en")  # the teacher's language
    qr = teacher.locator("#live-qr img")
    expect(qr).to_have_attribute("src", f"/api/rooms/{code}/qr.svg?lang=en")
    assert qr.evaluate("(img) => img.decode().then(() => img.naturalWidth > 0)")

    student = fresh_context().new_page()  # another browser
    record_live_views(student)
    student.goto(link)
    student.locator("body[data-ready=true]").wait_for(state="attached")
    expect(student.locator("#follow-bar")).to_be_visible()

    teacher.evaluate("document.activeElement && document.activeElement.blur()")
    for key in ("ArrowRight", "2", "p"):
        teacher.keyboard.press(key)
    poll(
        teacher,
        "location.search",
        lambda search: "step=1" in search and "stage=2" in search and "present=true" in search,
    )
    # the student's page shows the same step, stage and presentation mode, in place (its address stays)
    poll(student, "document.getElementById('step-label').textContent", lambda text: "2 of 4" in text)
    poll(student, "document.body.dataset.stage", lambda stage: stage == "2")
    poll(student, "document.body.classList.contains('present')", lambda present: present)
    assert student.url == link

    student.keyboard.press("ArrowLeft")  # the student looks around: following stops
    expect(student.locator("#follow-again")).to_be_visible()
    teacher.keyboard.press("ArrowRight")
    poll(teacher, "location.search", lambda search: "step=2" in search)
    # the student's page has received the teacher's new step, and has finished showing a view if it began one
    poll(student, "window.__liveViews", lambda views: any("step=2" in view for view in views))
    wait_ready(student)
    assert "1 of 4" in student.locator("#step-label").inner_text(), "a student who moved is not pulled back"
    student.locator("#follow-again").click()
    poll(student, "document.getElementById('step-label').textContent", lambda text: "3 of 4" in text)
