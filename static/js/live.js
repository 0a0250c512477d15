// Live class: the teacher's page drives a room, students' pages follow it.
//
// A view is the canonical query string of a link ("source=tom+chases+jerry&step=2"). The server
// checks and stores it; students receive it through Server-Sent Events (EventSource). No build step,
// no inline script: import this module from the page's own module.
//
//   startRoom(view, roomsUrl) -> Promise<Room>
//       POST roomsUrl (the page data's paths.rooms, "/api/rooms") with the view the room starts with.
//       Room = {code, secret, version, view, followUrl, followLink, roomUrl, eventsUrl, qrUrl, expiresIn}:
//       show `code`, `followLink` (absolute) and <img src=qrUrl>. Throws LiveError (status, message).
//
//   new Teacher(room, {onStatus(status), onError(message)})
//       .publish(view)   send the teacher's new view. Coalesced: at most one PUT in flight, the
//                        latest view wins, a view equal to the last one sent is skipped. While the
//                        server cannot take it (503, network) it retries with backoff.
//       .stop()          stop sending (the room stays until it expires).
//       While idle it sends its current view again every third of the room's idleSeconds: a room
//       nobody follows ends that long after its last change, and the open teacher's page keeps it.
//       status: 'live' | 'reconnecting' (retrying) | 'ended' (room gone or the secret refused).
//       onError: the server refused a view as not a valid link (422); its message.
//
//   follow(room, {onView(view, version), onStatus(status)}) -> {close(), status, version}
//       room: the page data's `follow` object in follow mode (or a Room). onView gets each newer
//       view once, in order of version; onStatus 'live' | 'reconnecting' | 'ended'. On 'ended'
//       (the room expired or never existed) following stops by itself.
//
//   saveRoom(room), loadRoom(), forgetRoom()
//       keep the teacher's room in sessionStorage (this tab only), so a reload keeps driving it.
//
// The secret travels only in the Authorization header of PUT; it is never put in a URL.

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;
const STORAGE_KEY = "attention-lens:live-room";

export class LiveError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A room from the server's JSON (snake_case) or from a Room already (camelCase). */
export function asRoom(data) {
  const followUrl = data.followUrl ?? data.follow_url;
  return {
    code: data.code,
    secret: data.secret ?? null,
    version: data.version ?? 0,
    view: data.view ?? null,
    followUrl,
    followLink: new URL(followUrl, location.href).href,
    roomUrl: data.roomUrl ?? data.room_url,
    eventsUrl: data.eventsUrl ?? data.events_url,
    qrUrl: data.qrUrl ?? data.qr_url,
    expiresIn: data.expiresIn ?? data.expires_in ?? null,
    idleSeconds: data.idleSeconds ?? data.idle_seconds ?? null,
  };
}

async function errorMessage(answer) {
  try {
    return (await answer.json()).message ?? `HTTP ${answer.status}`;
  } catch {
    return `HTTP ${answer.status}`;
  }
}

export async function startRoom(view, roomsUrl) {
  const answer = await fetch(roomsUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ view }),
    cache: "no-store",
  });
  if (answer.status !== 201) throw new LiveError(answer.status, await errorMessage(answer));
  return asRoom(await answer.json());
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Teacher {
  constructor(room, { onStatus = () => {}, onError = () => {} } = {}) {
    this.room = asRoom(room);
    this.onStatus = onStatus;
    this.onError = onError;
    this.status = "live";
    this.sent = this.room.view; // the view the room shows
    this.pending = null; // the newest view not sent yet
    this.busy = false;
    this.stopped = false;
    this.delay = RETRY_FIRST_MS;
    this.keeper = null;
    if (this.room.idleSeconds) {
      this.keeper = setInterval(() => this.keepOpen(), (this.room.idleSeconds * 1000) / 3);
    }
  }

  async keepOpen() {
    if (this.busy || this.stopped || this.room.secret === null) return;
    this.busy = true;
    try {
      const outcome = await this.put(this.sent); // the same view: the room only stays open
      if (outcome === "ended") {
        this.report("ended");
        this.stop();
      }
    } finally {
      this.busy = false;
    }
    if (this.pending !== null) this.flush();
  }

  publish(view) {
    if (this.stopped) return;
    this.pending = view;
    if (!this.busy) this.flush();
  }

  stop() {
    this.stopped = true;
    this.pending = null;
    clearInterval(this.keeper);
  }

  report(status) {
    if (status === this.status) return;
    this.status = status;
    this.onStatus(status);
  }

  async flush() {
    this.busy = true;
    try {
      while (this.pending !== null && !this.stopped) {
        const view = this.pending;
        this.pending = null;
        if (view === this.sent) continue;
        const outcome = await this.put(view);
        if (outcome === "sent") {
          this.sent = view;
          this.delay = RETRY_FIRST_MS;
          this.report("live");
        } else if (outcome === "retry") {
          if (this.pending === null) this.pending = view; // unless a newer view came meanwhile
          this.report("reconnecting");
          await sleep(this.delay);
          this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
        } else if (outcome === "ended") {
          this.report("ended");
          this.stop();
        } // "refused": onError was told; the next view is sent as usual
      }
    } finally {
      this.busy = false;
    }
  }

  async put(view) {
    let answer;
    try {
      answer = await fetch(this.room.roomUrl, {
        method: "PUT",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.room.secret}` },
        body: JSON.stringify({ view }),
        cache: "no-store",
      });
    } catch {
      return "retry"; // the network or the server is away
    }
    if (answer.ok) return "sent";
    if (answer.status === 422) {
      this.onError(await errorMessage(answer));
      return "refused";
    }
    if ([401, 403, 404].includes(answer.status)) return "ended";
    return "retry"; // 503 (Redis away, a limit), 429, a proxy's 502
  }
}

export function follow(room, { onView = () => {}, onStatus = () => {} } = {}) {
  room = asRoom(room);
  let source = null;
  let closed = false;
  let timer = null;
  let delay = RETRY_FIRST_MS;
  const state = { status: null, version: 0 };

  const report = (status) => {
    if (status === state.status) return;
    state.status = status;
    onStatus(status);
  };

  const close = () => {
    closed = true;
    clearTimeout(timer);
    if (source) source.close();
  };

  const end = () => {
    close();
    report("ended");
  };

  // The stream was refused (404, 503 ...): EventSource gives up, so ask the room itself what happened.
  const check = async () => {
    let answer = null;
    try {
      answer = await fetch(room.roomUrl, { cache: "no-store" });
    } catch {
      // the network is away: try again below
    }
    if (closed) return;
    if (answer && answer.status === 404) return end();
    report("reconnecting");
    timer = setTimeout(open, delay);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };

  const open = () => {
    source = new EventSource(room.eventsUrl);
    source.onopen = () => {
      delay = RETRY_FIRST_MS;
      report("live");
    };
    source.onmessage = (event) => {
      const { view, version } = JSON.parse(event.data);
      if (version === state.version) return; // a reconnect resends the current view
      state.version = version;
      onView(view, version);
    };
    source.addEventListener("status", (event) => {
      const { status } = JSON.parse(event.data);
      if (status === "ended") end();
      else report(status);
    });
    source.onerror = () => {
      if (closed) return;
      if (source.readyState === EventSource.CONNECTING) {
        report("reconnecting"); // the stream ended (a server restarting): the browser reconnects by itself
        return;
      }
      source.close();
      check();
    };
  };

  open();
  return {
    close,
    get status() {
      return state.status;
    },
    get version() {
      return state.version;
    },
  };
}

export function saveRoom(room) {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(asRoom(room)));
  } catch {
    // storage refused (private mode, quota): the room lives as long as the page
  }
}

export function loadRoom() {
  try {
    const room = JSON.parse(sessionStorage.getItem(STORAGE_KEY));
    return room && room.secret ? asRoom(room) : null;
  } catch {
    return null;
  }
}

export function forgetRoom() {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept
  }
}
