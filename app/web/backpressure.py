"""Large answers leave in pieces, so a client that reads slowly holds back the sender, not memory.

A body handed to the HTTP server in one message is copied into the connection's write buffer whole:
a client that never reads keeps the copy (about 1 MB for the largest view) for as long as it stays
connected. Sent in pieces of 64 KiB, each piece waits until the previous ones have drained (uvicorn's
flow control), so such a client holds at most a piece or two in the server's buffers; the body itself
is shared when the answer comes from the response cache or a coalesced computation. A client that
takes more than SEND_TIMEOUT seconds to make room for the next piece is dropped: the answer stops
there and the server closes the connection (and logs that the answer was not completed), as nginx's
send_timeout does in front of it.
"""

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PIECE_BYTES = 64 * 1024


class ClientStoppedReading(Exception):
    """A piece of the answer could not be sent within the send timeout."""


class SendInPieces:
    def __init__(self, app: ASGIApp, timeout: float = 10.0):
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def in_pieces(message: Message) -> None:
            body = message.get("body", b"") if message["type"] == "http.response.body" else b""
            if len(body) <= PIECE_BYTES:
                return await send(message)
            more_body = message.get("more_body", False)
            whole = memoryview(body)
            for start in range(0, len(body), PIECE_BYTES):
                last = start + PIECE_BYTES >= len(body)
                piece = bytes(whole[start : start + PIECE_BYTES])
                message = {"type": "http.response.body", "body": piece, "more_body": more_body or not last}
                try:
                    async with asyncio.timeout(self.timeout):
                        await send(message)
                except TimeoutError:
                    raise ClientStoppedReading() from None

        try:
            await self.app(scope, receive, in_pieces)
        except ClientStoppedReading:
            return  # an answer left incomplete: the server closes the connection
