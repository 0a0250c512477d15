"""HEAD on every GET route (RFC 9110, section 9.3.2): the GET's status and headers, no body.

FastAPI registers only the methods a route names, so HEAD would get 405 everywhere. This asks the app
the same request as a GET and sends everything but the body; Content-Length stays the GET's.
"""

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)
