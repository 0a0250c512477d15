// The live class on the page: the teacher's panel (start, the room's code, link and QR code, stop) and the
// student's bar (following, reconnecting, "Follow again"). The protocol is live.js; the page's own state
// (state.js) tells this module when the view changes, and this module asks the page to show a view.
import { LiveError, Teacher, follow, forgetRoom, loadRoom, saveRoom, startRoom } from "./live.js";
import * as state from "./state.js";

const $ = (id) => document.getElementById(id);

/** The view a room carries: the canonical link without the language, so every student keeps their own. */
function roomView(query) {
  return query
    .split("&")
    .filter((pair) => pair && !pair.startsWith("lang="))
    .join("&");
}

/**
 * The link students open, in the teacher's language: a room's views carry no language, so the follow
 * link does; a student who switches language afterwards keeps their own.
 */
function followLink(room) {
  return `${room.followLink}?lang=${state.page.lang}`;
}

/** The room's code, link and QR code shown in full, or folded to one line (the code and the buttons). */
function fold(folded) {
  $("live-panel").classList.toggle("folded", folded);
  $("live-fold").setAttribute("aria-expanded", String(!folded));
}

function showTeacher(room, t) {
  $("live-code").textContent = room.code;
  const link = $("live-link");
  const href = followLink(room);
  link.textContent = href;
  link.setAttribute("href", href);
  const qr = document.createElement("img"); // made here: a page without a room has no image at all
  qr.className = "live-qr";
  qr.width = qr.height = 180;
  qr.alt = `${t.live_qr} ${href}`;
  qr.src = `${room.qrUrl}?lang=${state.page.lang}`;
  $("live-qr").replaceChildren(qr);
  $("live-panel").hidden = false;
  $("live-start").hidden = true;
}

function drive(room, t) {
  const status = $("live-status");
  const teacher = new Teacher(room, {
    onStatus: (value) => {
      status.textContent = t[`live_${value}`] || value;
      if (value === "ended") stopDriving(teacher, t);
    },
    onError: (message) => {
      status.textContent = message;
    },
  });
  showTeacher(room, t);
  status.textContent = t.live_live; // the room is live from its start (the teacher reports changes only)
  teacher.publish(roomView(state.currentQuery()));
  state.onUrlChange(() => teacher.publish(roomView(state.currentQuery())));
  $("live-stop").addEventListener("click", () => stopDriving(teacher, t), { once: true });
  return teacher;
}

function stopDriving(teacher, t) {
  teacher.stop();
  forgetRoom();
  $("live-panel").hidden = true;
  $("live-start").hidden = false;
  $("live-status").textContent = t.live_ended;
}

/** The teacher's side: a button that starts a room, and a room kept across reloads of this tab. */
function setupTeacher(t) {
  $("live-fold").addEventListener("click", () => fold($("live-fold").getAttribute("aria-expanded") === "true"));
  const saved = loadRoom();
  if (saved) drive(saved, t);
  $("live-start").addEventListener("click", async () => {
    $("live-status").textContent = t.loading;
    try {
      const room = await startRoom(roomView(state.currentQuery()), state.page.routes.rooms);
      saveRoom(room);
      drive(room, t);
    } catch (error) {
      $("live-status").textContent = error instanceof LiveError ? error.message : String(error);
      $("live-panel").hidden = false;
    }
  });
}

/**
 * The student's side (the page opened at /live/<code>): every view the teacher sends is shown in place, until
 * the student does something of their own; then following stops until "Follow again".
 */
function setupStudent(room, t, showView) {
  const bar = $("follow-bar");
  const status = $("follow-status");
  const again = $("follow-again");
  let latest = null; // the last view the teacher sent, shown at once on "Follow again"
  bar.hidden = false;
  state.setFollowing(true);
  const apply = (view) => {
    latest = view;
    if (state.isFollowing()) showView(view);
  };
  const follower = follow(room, {
    onView: apply,
    onStatus: (value) => {
      status.textContent = `${t.follow_room} ${room.code} · ${t[`live_${value}`] || value}`;
      if (value === "ended") again.hidden = true;
    },
  });
  const leave = (event) => {
    if (!state.isFollowing() || !event.isTrusted || bar.contains(event.target)) return;
    state.setFollowing(false);
    again.hidden = false;
    status.textContent = `${t.follow_room} ${room.code} · ${t.follow_paused}`;
  };
  for (const kind of ["keydown", "input", "pointerdown"]) document.addEventListener(kind, leave, true);
  again.addEventListener("click", () => {
    state.setFollowing(true);
    again.hidden = true;
    status.textContent = `${t.follow_room} ${room.code} · ${t[`live_${follower.status}`] || ""}`;
    if (latest !== null) showView(latest);
  });
  window.addEventListener("pagehide", () => follower.close());
}

/** Start what this page needs: follow a room (the page data names one) or offer to start one. */
export function setupLive({ t, showView }) {
  if (state.page.follow) setupStudent(state.page.follow, t, showView);
  else if (!state.page.embed) setupTeacher(t);
}
