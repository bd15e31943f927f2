"""The body limit of `oracle_site.body_limit`, applied inside daphne before it buffers a body.

daphne (4.2) receives a whole request body into Twisted's temporary file, then queues all of
it, in 8 kB chunks, for the application before the application runs: an ASGI middleware
alone still sees a 200 MB POST held in daphne's memory. This request class answers 413 as
soon as the headers declare too much (or a chunked body passes the limit), discards what
the client still sends and closes the connection; the application never sees the request.

`install()` swaps daphne's request class (daphne's HTTPFactory reads the module's
`WebRequest` for every new connection), gives each connection the read timeout
HTTP_READ_TIMEOUT_S and daphne's `-b`/`-p` socket a listen backlog of HTTP_LISTEN_BACKLOG
(Twisted's default is 50: with 600 streams opened at once the kernel dropped the connections
past it, and their clients tried again one, three, seven seconds later); asgi.py calls it
(daphne loads the application before it builds its sockets). Under another server none is used.
"""

from __future__ import annotations

import io

from daphne import cli, http_protocol

from .body_limit import limit_for, refusal

DaphneRequest = http_protocol.WebRequest  # daphne's own, before install()


def install() -> None:
    if http_protocol.WebRequest is not LimitedWebRequest:
        http_protocol.WebRequest = LimitedWebRequest
    if http_protocol.HTTPFactory.buildProtocol is not _build_protocol:
        global _daphne_build_protocol
        _daphne_build_protocol = http_protocol.HTTPFactory.buildProtocol
        http_protocol.HTTPFactory.buildProtocol = _build_protocol
    if cli.build_endpoint_description_strings is not _endpoints:
        global _daphne_endpoints
        _daphne_endpoints = cli.build_endpoint_description_strings
        cli.build_endpoint_description_strings = _endpoints


_daphne_build_protocol = None
_daphne_endpoints = None


def _endpoints(*args, **kwargs) -> list[str]:
    """daphne's endpoint descriptions, each TCP one with HTTP_LISTEN_BACKLOG."""
    from django.conf import settings

    backlog = settings.HTTP_LISTEN_BACKLOG
    return [f"{description}:backlog={backlog}" if description.startswith("tcp:") and backlog > 0 else description
            for description in _daphne_endpoints(*args, **kwargs)]  # fmt: skip


def _build_protocol(self, addr):
    """daphne's connection, with HTTP_READ_TIMEOUT_S as Twisted's idle timeout (daphne leaves
    Twisted's 12 hours). Twisted counts it while it reads a request's headers and body, from
    the last bytes received, and suspends it while the response is produced: a client that
    stops sending mid-request is disconnected, a long answer stream is not."""
    from django.conf import settings

    protocol = _daphne_build_protocol(self, addr)
    if protocol is not None and settings.HTTP_READ_TIMEOUT_S > 0:
        protocol.timeOut = settings.HTTP_READ_TIMEOUT_S
    return protocol


class LimitedWebRequest(DaphneRequest):
    _refused = False
    _received = 0
    _limit = 0
    _target = "/"

    def gotLength(self, length):
        # Twisted's channel holds the request line's path until the body is complete.
        raw = getattr(self.channel, "_path", b"/") or b"/"
        self._target = raw.split(b"?", 1)[0].decode("latin-1")
        self._limit = limit_for(self._target)
        if length is not None and length > self._limit:
            self.content = io.BytesIO()
            self._refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data):
        if self._refused:
            return  # discarded: nothing of a refused body is kept
        self._received += len(data)
        if self._received > self._limit:
            self.content.truncate(0)
            self._refuse()
            return
        super().handleContentChunk(data)

    _hidden_content_type = None

    def requestReceived(self, command, path, version):
        # Twisted parses a form body into `self.args` before `process()`: a multipart body is
        # read whole and copied by the email parser (a 60 MB upload took daphne from 240 MB
        # to a 1 GB peak). Daphne never reads `self.args`, so Twisted is not shown the body's
        # type; `process()` puts the header back before daphne builds the ASGI scope.
        self._hidden_content_type = self.requestHeaders.getRawHeaders(b"content-type")
        self.requestHeaders.removeHeader(b"content-type")
        return super().requestReceived(command, path, version)

    def process(self):
        if self._hidden_content_type is not None:
            self.requestHeaders.setRawHeaders(b"content-type", self._hidden_content_type)
            self._hidden_content_type = None
        if self._refused:
            self.channel.transport.loseConnection()
            return None
        return super().process()

    def _refuse(self):
        self._refused = True
        headers = [(name.lower(), value) for name, values in self.requestHeaders.getAllRawHeaders() for value in values]
        status, response_headers, body = refusal(self._target, self._limit, headers)
        head = b"HTTP/1.1 %d Payload Too Large\r\n" % status
        head += b"".join(name + b": " + value + b"\r\n" for name, value in response_headers)
        self.channel.transport.write(head + b"\r\n" + body)
