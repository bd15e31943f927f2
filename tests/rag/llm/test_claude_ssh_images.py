"""Page images reach the Claude host over SFTP on the same connection, once."""

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
