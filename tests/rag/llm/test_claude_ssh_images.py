"""Page images reach the Claude host over SFTP on the same connection, once, and the CLI
there opens them with its Read tool when its settings.json allows that folder."""

import base64
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def page_image(root: Path, slug: str = "heat", name: str = "page-04.png", content: bytes = b"\x89PNG fake page") -> Path:
    path = root / slug / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def test_image_location_is_under_the_vm_images_path(ssh_backend, tmp_path):
    backend = ssh_backend()
    image = page_image(tmp_path / "page-images")
    assert backend.image_location(image) == f"{tmp_path / 'vm-images'}/heat/page-04.png"


def test_page_image_is_copied_before_the_call_and_named_in_the_prompt(ssh_backend, messages_api, tmp_path, sshd_servers):
    server = sshd_servers("api_key")
    backend = ssh_backend()
    image = page_image(tmp_path / "page-images")
    remote = Path(backend.image_location(image))
    logins_before = server.accepted_logins()

    prompt = f"IMAGES DES RÈGLES :\n- HEAT, page 4 : {remote}"
    backend.complete("Système", prompt, model="sonnet", timeout=60, images=[image])

    assert remote.read_bytes() == image.read_bytes()
    assert messages_api.conversation_requests()[0].user_texts[-1] == prompt
    assert server.accepted_logins() - logins_before == 1  # SFTP rode the same connection


def test_an_image_already_there_with_the_same_size_is_not_copied_again(ssh_backend, tmp_path):
    backend = ssh_backend()
    image = page_image(tmp_path / "page-images")
    remote = backend.image_location(image)

    assert backend.connection.copy_if_missing(image, remote) is True
    assert backend.connection.copy_if_missing(image, remote) is False

    image.write_bytes(b"\x89PNG re-rendered page, longer")
    assert backend.connection.copy_if_missing(image, remote) is True
    assert Path(remote).read_bytes() == image.read_bytes()


def test_shared_images_folder_is_not_copied(ssh_backend, messages_api, tmp_path):
    backend = ssh_backend(ssh_overrides={"images_shared": True})
    image = page_image(tmp_path / "page-images")

    backend.complete("Système", "Question", model="sonnet", timeout=60, images=[image])

    assert not Path(backend.image_location(image)).exists()


# A real 1x1 PNG: the CLI's Read tool checks what it opens.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


@pytest.fixture
def vm_cli_settings(sshd_servers):
    """Writes the VM user's ~/.claude/settings.json for one test (docs/llm-backends.md, step 6)."""
    path = Path(sshd_servers("api_key").env["HOME"]) / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)

    def write(images_path: Path | None):
        permissions = {}
        if images_path is not None:
            permissions = {"additionalDirectories": [str(images_path)], "allow": [f"Read(/{images_path}/**)"]}
        path.write_text(json.dumps({"permissions": permissions}))

    yield write
    path.unlink(missing_ok=True)


def ask_to_read_the_page(backend, image: Path) -> str:
    remote = backend.image_location(image)
    prompt = f"IMAGES DES RÈGLES :\n- HEAT, page 4 : {remote}\nREAD:{remote}"
    return backend.complete("Système", prompt, model="sonnet", timeout=90, images=[image])


def test_cli_on_the_vm_reads_the_copied_page_with_the_documented_permissions(
    ssh_backend, messages_api, vm_cli_settings, tmp_path
):
    vm_cli_settings(tmp_path / "vm-images")
    messages_api.mode = "read_image"
    backend = ssh_backend()
    image = page_image(tmp_path / "page-images", content=PNG)

    answer = ask_to_read_the_page(backend, image)

    assert answer == "J'ai lu la page."
    (result,) = messages_api.requests[-1].tool_results
    assert result["content"][0]["source"] == {"type": "base64", "data": base64.b64encode(PNG).decode(), "media_type": "image/png"}


def test_without_those_permissions_the_cli_cannot_open_the_page(ssh_backend, messages_api, vm_cli_settings, tmp_path):
    vm_cli_settings(None)
    messages_api.mode = "read_image"
    backend = ssh_backend()

    ask_to_read_the_page(backend, page_image(tmp_path / "page-images", content=PNG))

    (result,) = messages_api.requests[-1].tool_results
    assert result["is_error"] is True
    assert "haven't granted" in json.dumps(result)
