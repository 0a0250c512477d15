"""Simultaneous requests for the same new link compute it once (single flight).

A class opening the teacher's link sends the same request many times within a second. The first one
(the leader) computes; the others that arrive while it does (the followers) wait for its answer and
are sent the same bytes. Requests are matched by the response cache's key (app.web.cache.answer_key),
so only requests that would get byte-identical answers share one. If the leader ends without a whole
answer (it failed or was cancelled), each follower computes its own.
"""

import asyncio
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.cache import Answer, Recorder, answer_key, shareable


@dataclass
class Flight:
    """A computation in progress: its answer when done (None if there was no whole answer)."""

    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    followers: int = 0


class Coalesce:
    def __init__(self, app: ASGIApp):
        self.app = app
        self.in_flight: dict[bytes, Flight] = {}
        self.computed = 0  # leaders so far: the number of computations (tests read it)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not shareable(scope):
            return await self.app(scope, receive, send)
        key = answer_key(scope)
        flight = self.in_flight.get(key)
        if flight is not None:
            flight.followers += 1
            answer: Answer | None = await asyncio.shield(flight.done)  # a cancelled follower leaves it alone
            if answer is not None:
                return await answer.send(send)
            return await self.app(scope, receive, send)
        flight = self.in_flight[key] = Flight()
        self.computed += 1
        recorder = Recorder(send)
        try:
            await self.app(scope, receive, recorder)
        finally:
            del self.in_flight[key]
            flight.done.set_result(recorder.answer())
