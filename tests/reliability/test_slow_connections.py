"""A client that stops sending in the middle of its request is disconnected after
HTTP_READ_TIMEOUT_S (oracle_site/daphne_limit.py): slow headers and slow bodies no longer
hold a connection (and daphne's memory for it) for Twisted's 12 hours."""

import socket
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.slow


DAPHNE_ENV = {"HTTP_READ_TIMEOUT_S": "1"}  # one server for the module (module_daphne)


def closed_by_server(base_url: str, sent: bytes, wait_s: float = 30) -> bool:
    """Send `sent`, then nothing: True if the server closes the connection while we wait."""
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=wait_s) as sock:
        sock.sendall(sent)
        try:
            while sock.recv(4096):
                pass
        except TimeoutError:
            return False
        return True


def test_a_request_whose_headers_stop_coming_is_closed(module_daphne):
    assert closed_by_server(module_daphne, b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n")


def test_a_request_whose_body_stops_coming_is_closed(module_daphne):
    head = b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n"
    assert closed_by_server(module_daphne, head + b"username=bob&pass")


def test_a_complete_request_is_still_answered(module_daphne):
    address = urlsplit(module_daphne)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    assert response.startswith(b"HTTP/1.1 200")
